import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "pino";
import { ApiError } from "../errors.ts";
import { admit } from "../gate.ts";
import { readBody } from "../http/inputs.ts";
import { type Executed, errorBody, type Outcome } from "../http/server.ts";
import type { World } from "../store/world.ts";
import { originAllowed, wwwAuthenticate } from "./discovery.ts";
import {
  classify,
  failure,
  INVALID_REQUEST,
  type Message,
  PARSE_ERROR,
  type RequestId,
  RpcFailure,
  success,
} from "./jsonrpc.ts";
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
  if (!originAllowed(request)) {
    const refusal = new ApiError(
      403,
      "origin_not_allowed",
      `Origin ${request.headers.origin} may not use this MCP server; call it from the simulator's own origin or loopback`,
    );
    const blocked: Outcome = {
      status: 403,
      headers: {},
      operation: "mcp",
      keyId: null,
      replayed: false,
      dropped: false,
    };
    return reply(blocked, 403, errorBody(refusal, requestId));
  }
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
    const challenge: Record<string, string> =
      error.status === 401 ? { "WWW-Authenticate": wwwAuthenticate(request) } : {};
    return reply(outcome, error.status, errorBody(error, requestId), { ...error.headers, ...challenge });
  }
  const message = await receive(request);
  if (message.kind === "refused") {
    const error = failure(message.id, { code: message.code, message: message.message });
    return reply(outcome, message.status, error, message.headers);
  }
  if (message.kind === "notification") return reply({ ...outcome, operation: `mcp:${message.method}` }, 202);
  if (message.kind === "response") return reply(outcome, 202);

  const { id, method } = message.request;
  const drop = () => response.destroy();
  try {
    const context = { world, principal, tools: deps.tools, requestId, drop };
    const handled = await handleRequest(context, message.request);
    const { operation, executed } = handled;
    deps.logger.debug({ requestId, operation, status: executed?.status }, "mcp request");
    if (executed !== undefined && isRateLimit(executed)) {
      // A rate limit is an HTTP-level refusal on MCP too, never a tool result.
      return reply({ ...outcome, operation }, 429, executed.body, executed.headers);
    }
    const replayed = executed?.replayed === true;
    const headers: Record<string, string> = replayed ? { "Idempotent-Replayed": "true" } : {};
    return {
      ...reply({ ...outcome, operation }, 200, success(id, handled.result), headers),
      replayed,
      dropped: executed?.dropped === true,
    };
  } catch (error) {
    if (!(error instanceof RpcFailure)) throw error;
    return reply({ ...outcome, operation: `mcp:${method}` }, 200, failure(id, error.toError()));
  }
}

function isRateLimit(executed: Executed): boolean {
  const body = executed.body as { error?: { code?: unknown } } | undefined;
  return executed.status === 429 && body?.error?.code === "rate_limited";
}

function reply(
  outcome: Outcome,
  status: number,
  body?: unknown,
  headers: Record<string, string> = {},
): Outcome {
  return { ...outcome, status, body, headers: { ...outcome.headers, ...headers } };
}

interface Refused {
  kind: "refused";
  status: number;
  code: number;
  message: string;
  id: RequestId | null;
  headers?: Record<string, string>;
}

function refused(status: number, message: string, more: Partial<Refused> = {}): Refused {
  return { kind: "refused", status, code: INVALID_REQUEST, message, id: null, ...more };
}

/** The one JSON-RPC message of a POST, or why it is refused at HTTP level. */
async function receive(request: IncomingMessage): Promise<Exclude<Message, { kind: "invalid" }> | Refused> {
  if (request.method !== "POST") {
    const message = "the MCP endpoint takes POST only: it offers no SSE stream (GET) and keeps no sessions";
    return refused(405, message, { headers: { Allow: "POST" } });
  }
  const version = request.headers["mcp-protocol-version"];
  if (version !== undefined && !PROTOCOL_VERSIONS.includes(String(version))) {
    return refused(
      400,
      `unsupported MCP-Protocol-Version ${version}; supported: ${PROTOCOL_VERSIONS.join(", ")}`,
    );
  }
  const ranges = (request.headers.accept ?? "*/*")
    .split(",")
    .map((r) => r.split(";")[0]?.trim().toLowerCase());
  const accepts = (type: string) =>
    ranges.some((range) => range === "*/*" || range === type || range === `${type.split("/")[0]}/*`);
  if (!accepts("application/json") || !accepts("text/event-stream")) {
    return refused(406, "Accept must include application/json and text/event-stream");
  }
  if (!/^application\/json\s*(;|$)/i.test(request.headers["content-type"] ?? "")) {
    return refused(415, "send the JSON-RPC message with Content-Type: application/json");
  }
  let value: unknown;
  try {
    value = JSON.parse((await readBody(request)).toString("utf8"));
  } catch (error) {
    if (error instanceof ApiError) return refused(error.status, error.message);
    return refused(400, "the body is not valid JSON", { code: PARSE_ERROR });
  }
  if (Array.isArray(value)) {
    return refused(400, "batches are not supported: send one JSON-RPC message per HTTP request");
  }
  const message = classify(value);
  return message.kind === "invalid" ? refused(400, message.reason, { id: message.id }) : message;
}
