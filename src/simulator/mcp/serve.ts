import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "pino";
import { ApiError } from "../errors.ts";
import { admit } from "../gate.ts";
import { readBody } from "../http/inputs.ts";
import { errorBody, type Outcome } from "../http/server.ts";
import type { World } from "../store/world.ts";
import { classify, failure, INVALID_REQUEST, PARSE_ERROR, RpcFailure, success } from "./jsonrpc.ts";
import { handleRequest, PROTOCOL_VERSIONS } from "./methods.ts";
import type { Tool } from "./tool-table.ts";

export interface McpDeps {
  world: World;
  tools: ReadonlyMap<string, Tool>;
  logger: Logger;
}

/**
 * Serves one request to `/mcp` (MCP Streamable HTTP, stateless, JSON answers only): authentication
 * and rate limit first, exactly as REST (one HTTP request is one unit), then one JSON-RPC message.
 */
export async function serveMcp(
  deps: McpDeps,
  request: IncomingMessage,
  response: ServerResponse,
  requestId: string,
): Promise<Outcome> {
  const { world } = deps;
  const admission = admit(
    world,
    {
      authorization: request.headers.authorization,
      clientAddress: request.socket.remoteAddress ?? "unknown",
      oauth: true,
    },
    world.settle(),
  );
  const outcome: Outcome = {
    status: 200,
    headers: admission.headers,
    operation: "mcp",
    keyId: admission.principal?.key.id ?? null,
    replayed: false,
    dropped: false,
  };
  const principal = admission.principal;
  if (admission.error !== undefined || principal === undefined) {
    const error = admission.error ?? new ApiError(401, "unauthorized", "no credential");
    return reply(outcome, error.status, errorBody(error, requestId), error.headers);
  }
  const refused = checkHeaders(request);
  if (refused !== undefined) {
    return reply(outcome, refused.status, failure(null, rpcError(refused.message)), refused.headers);
  }

  let value: unknown;
  try {
    value = JSON.parse((await readBody(request)).toString("utf8"));
  } catch (error) {
    if (error instanceof ApiError)
      return reply(outcome, error.status, failure(null, rpcError(error.message)));
    return reply(outcome, 400, failure(null, { code: PARSE_ERROR, message: "the body is not valid JSON" }));
  }
  if (Array.isArray(value)) {
    const message = "batches are not supported: send one JSON-RPC message per HTTP request";
    return reply(outcome, 400, failure(null, rpcError(message)));
  }
  const message = classify(value);
  if (message.kind === "invalid") return reply(outcome, 400, failure(message.id, rpcError(message.reason)));
  if (message.kind === "notification") return reply({ ...outcome, operation: `mcp:${message.method}` }, 202);
  if (message.kind === "response") return reply(outcome, 202);

  const { id, method } = message.request;
  const drop = () => response.destroy();
  try {
    const context = { world, principal, tools: deps.tools, requestId, drop };
    const handled = await handleRequest(context, message.request);
    const executed = handled.executed;
    deps.logger.debug({ requestId, operation: handled.operation, status: executed?.status }, "mcp request");
    return {
      ...reply({ ...outcome, operation: handled.operation }, 200, success(id, handled.result)),
      headers: { ...outcome.headers, ...(executed?.replayed ? { "Idempotent-Replayed": "true" } : {}) },
      replayed: executed?.replayed ?? false,
      dropped: executed?.dropped ?? false,
    };
  } catch (error) {
    if (!(error instanceof RpcFailure)) throw error;
    return reply({ ...outcome, operation: `mcp:${method}` }, 200, failure(id, error.toError()));
  }
}

function reply(
  outcome: Outcome,
  status: number,
  body?: unknown,
  headers: Record<string, string> = {},
): Outcome {
  return { ...outcome, status, body, headers: { ...outcome.headers, ...headers } };
}

function rpcError(message: string) {
  return { code: INVALID_REQUEST, message };
}

/** Method, protocol version, Accept and Content-Type; a refusal carries its HTTP status. */
function checkHeaders(
  request: IncomingMessage,
): { status: number; message: string; headers?: Record<string, string> } | undefined {
  if (request.method !== "POST") {
    return {
      status: 405,
      message: "the MCP endpoint takes POST only: it offers no SSE stream (GET) and keeps no sessions",
      headers: { Allow: "POST" },
    };
  }
  const version = request.headers["mcp-protocol-version"];
  if (version !== undefined && !(PROTOCOL_VERSIONS as readonly string[]).includes(String(version))) {
    const message = `unsupported MCP-Protocol-Version ${String(version)}; supported: ${PROTOCOL_VERSIONS.join(", ")}`;
    return { status: 400, message };
  }
  const accept = (request.headers.accept ?? "*/*").split(",").map((part) => part.split(";")[0]?.trim());
  const accepts = (type: string) =>
    accept.some((range) => range === "*/*" || range === type || range === `${type.split("/")[0]}/*`);
  if (!accepts("application/json") || !accepts("text/event-stream")) {
    return { status: 406, message: "Accept must include application/json and text/event-stream" };
  }
  if (!/^application\/json\s*(;|$)/i.test(request.headers["content-type"] ?? "")) {
    return { status: 415, message: "send the JSON-RPC message with Content-Type: application/json" };
  }
  return undefined;
}
