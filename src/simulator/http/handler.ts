import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "pino";
import type { ControlRoute } from "../control/routes.ts";
import type { SimControl } from "../control/sim-control.ts";
import { ApiError } from "../errors.ts";
import { PROTECTED_RESOURCE_PATHS, protectedResourceMetadata } from "../mcp/discovery.ts";
import { serveMcp } from "../mcp/serve.ts";
import { buildTools, type Tool } from "../mcp/tool-table.ts";
import type { World } from "../store/world.ts";
import { decodeParams, parseJsonBody, parseWith, queryObject, readBody } from "./inputs.ts";
import type { Route } from "./route.ts";
import type { Router } from "./router.ts";
import { errorBody, type Outcome, serveApi } from "./server.ts";

export interface HandlerDeps {
  holder: { world: World };
  api: Router<Route>;
  /** Absent unless the control API is enabled. */
  control: { router: Router<ControlRoute>; sim: SimControl } | undefined;
  logger: Logger;
}

/** The node:http request listener: /v1 (the API), /mcp (its MCP tools), /_sim (control), /healthz. */
export function createRequestListener(
  deps: HandlerDeps,
): (request: IncomingMessage, response: ServerResponse) => void {
  const mcpTools = buildTools();
  return (request, response) => {
    void handle(deps, mcpTools, request, response);
  };
}

async function handle(
  deps: HandlerDeps,
  mcpTools: ReadonlyMap<string, Tool>,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const world = deps.holder.world;
  const requestId = world.ids.prefixed("req");
  const url = request.url ?? "/";
  const queryAt = url.indexOf("?");
  const path = queryAt === -1 ? url : url.slice(0, queryAt);
  const search = queryAt === -1 ? "" : url.slice(queryAt + 1);
  let outcome: Outcome;
  try {
    if (path === "/v1" || path.startsWith("/v1/") || path === "/mcp") {
      outcome =
        path === "/mcp"
          ? await serveMcp({ world, tools: mcpTools, logger: deps.logger }, request, response, requestId)
          : await serveApi(world, deps.api, request, response, path, search, requestId);
      world.stats.countRequest(outcome.operation, outcome.status);
      world.requestLog.add({
        at: new Date(world.clock.now()).toISOString(),
        requestId,
        operation: outcome.operation,
        method: request.method ?? "GET",
        path,
        status: outcome.status,
        keyId: outcome.keyId,
        replayed: outcome.replayed,
        dropped: outcome.dropped,
      });
    } else if (PROTECTED_RESOURCE_PATHS.includes(path) && request.method === "GET") {
      outcome = plain(200, protectedResourceMetadata(request));
    } else if (path === "/healthz") {
      outcome = plain(200, { ok: true });
    } else if ((path === "/_sim" || path.startsWith("/_sim/")) && deps.control !== undefined) {
      outcome = await serveControl(deps.control, request, path.slice("/_sim".length), search, requestId);
    } else {
      outcome = plain(404, errorBody(new ApiError(404, "not_found", `nothing at ${path}`), requestId));
    }
  } catch (error) {
    deps.logger.error({ err: error, requestId, path }, "simulator request failed");
    outcome = plain(500, errorBody(new ApiError(500, "internal_error", "the simulator failed"), requestId));
  }
  deps.logger.debug({ requestId, method: request.method, path, status: outcome.status }, "request");
  if (!outcome.dropped) send(response, requestId, outcome);
}

async function serveControl(
  control: NonNullable<HandlerDeps["control"]>,
  request: IncomingMessage,
  path: string,
  search: string,
  requestId: string,
): Promise<Outcome> {
  try {
    const match = control.router.match(request.method ?? "GET", path);
    if (match.kind !== "found")
      throw new ApiError(404, "not_found", `no control operation at ${request.method} /_sim${path}`);
    const params = decodeParams(match.params);
    const raw = parseJsonBody(request, await readBody(request));
    const route = match.route;
    const reply = route.handle({
      sim: control.sim,
      body: route.body === undefined ? raw : parseWith(route.body, raw ?? {}, ""),
      query: queryObject(search),
      param: (name) => params.get(name) ?? "",
    });
    return plain(reply.status, reply.body);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return plain(error.status, errorBody(error, requestId));
  }
}

function plain(status: number, body: unknown): Outcome {
  return { status, body, headers: {}, operation: null, keyId: null, replayed: false, dropped: false };
}

function send(response: ServerResponse, requestId: string, outcome: Outcome): void {
  if (response.destroyed) return;
  const headers: Record<string, string | number> = { ...outcome.headers, "X-Request-Id": requestId };
  if (outcome.binary !== undefined) {
    headers["Content-Type"] = outcome.binary.contentType;
    headers["Content-Length"] = outcome.binary.data.length;
    response.writeHead(outcome.status, headers);
    response.end(outcome.binary.data);
    return;
  }
  if (outcome.status === 204 || outcome.body === undefined) {
    response.writeHead(outcome.status, headers);
    response.end();
    return;
  }
  const json = JSON.stringify(outcome.body);
  headers["Content-Type"] = "application/json";
  headers["Content-Length"] = Buffer.byteLength(json);
  response.writeHead(outcome.status, headers);
  response.end(json);
}
