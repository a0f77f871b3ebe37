import type { IncomingMessage, ServerResponse } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { z } from "zod";
import type { Principal } from "../auth.ts";
import { ApiError, validationFailed } from "../errors.ts";
import type { ActiveFault } from "../faults.ts";
import { admit, rateLimited } from "../gate.ts";
import { checkIdempotencyKey, fingerprint } from "../idempotency.ts";
import { requireScopes } from "../scopes.ts";
import type { World } from "../store/world.ts";
import { decodeParams, parseJsonBody, parseWith, queryObject, readBody } from "./inputs.ts";
import type { Reply, Route } from "./route.ts";
import type { Router } from "./router.ts";

export interface Outcome extends Reply {
  headers: Record<string, string>;
  operation: string | null;
  keyId: string | null;
  replayed: boolean;
  dropped: boolean;
}

interface Input {
  params: Map<string, string>;
  query: unknown;
  rawBody: unknown;
  body: unknown;
  idempotencyKey: string | undefined;
}

const emptyQuery = z.object({}).strict();
const IN_PROGRESS_RETRY_SEC = 1;

export function errorBody(error: ApiError, requestId: string): unknown {
  return { error: { code: error.code, message: error.message, requestId, ...error.extra } };
}

/**
 * Serves one /v1 request in the documented order: authentication and rate limit, route, frozen
 * account, scopes, inputs, idempotency, injected faults, then the operation. Bad input always ends
 * as an error reply; only a bug throws.
 */
export async function serveApi(
  world: World,
  router: Router<Route>,
  request: IncomingMessage,
  response: ServerResponse,
  path: string,
  search: string,
  requestId: string,
): Promise<Outcome> {
  const now = world.settle();
  const method = request.method ?? "GET";
  const clientAddress = request.socket.remoteAddress ?? "unknown";
  const admission = admit(world, { authorization: request.headers.authorization, clientAddress }, now);
  const outcome: Outcome = {
    status: 500,
    headers: admission.headers,
    operation: null,
    keyId: admission.principal?.key.id ?? null,
    replayed: false,
    dropped: false,
  };
  try {
    const principal = admission.principal;
    if (admission.error !== undefined || principal === undefined) {
      throw admission.error ?? new ApiError(401, "unauthorized", "no credential");
    }
    const { route, params } = resolve(router, method, path);
    outcome.operation = route.operation;
    if (principal.user.frozen && method !== "GET") {
      throw new ApiError(403, "account_frozen", "this account is frozen; only reads are allowed");
    }
    requireScopes(principal.key.scopes, route.scopes);
    const input = await readInput(route, request, params, search);
    if (input.idempotencyKey === undefined) {
      return merge(outcome, await perform(world, route, principal, input, response, requestId));
    }
    const scope = `${principal.key.id}\n${route.operation}\n${input.idempotencyKey}`;
    const args = fingerprint({ params: Object.fromEntries(params), body: input.rawBody ?? null });
    const previous = world.idempotency.begin(scope, args, now, IN_PROGRESS_RETRY_SEC);
    if (previous.kind === "replay") {
      outcome.headers["Idempotent-Replayed"] = "true";
      return { ...outcome, ...previous.response, replayed: true };
    }
    // This request owns the key until it records or abandons it.
    try {
      const result = await perform(world, route, principal, input, response, requestId, (reply, fault) => {
        const forget = fault?.dropResponse === true && fault.forgetIdempotency === true;
        if (reply.status < 500 && !forget) {
          world.idempotency.complete(scope, { status: reply.status, body: reply.body });
        }
      });
      return merge(outcome, result);
    } finally {
      world.idempotency.abandon(scope);
    }
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return merge(outcome, errorReply(error, requestId));
  }
}

function merge(
  outcome: Outcome,
  reply: Reply & { headers?: Record<string, string>; dropped?: boolean },
): Outcome {
  return { ...outcome, ...reply, headers: { ...outcome.headers, ...reply.headers } };
}

function resolve(
  router: Router<Route>,
  method: string,
  path: string,
): { route: Route; params: Map<string, string> } {
  const match = router.match(method, path.slice("/v1".length));
  if (match.kind === "not_found") throw new ApiError(404, "not_found", `no operation at ${method} ${path}`);
  if (match.kind === "wrong_method") {
    const allow = match.allowed.join(", ");
    throw new ApiError(405, "method_not_allowed", `${path} accepts ${allow}`, {}, { Allow: allow });
  }
  return { route: match.route, params: decodeParams(match.params) };
}

async function readInput(
  route: Route,
  request: IncomingMessage,
  params: Map<string, string>,
  search: string,
): Promise<Input> {
  const query = parseWith(route.query ?? emptyQuery, queryObject(search), "query");
  const idempotencyKey = route.idempotent === true ? readIdempotencyKey(request) : undefined;
  const rawBody = parseJsonBody(request, await readBody(request));
  const body = route.body === undefined ? noBody(rawBody) : parseWith(route.body, rawBody, "");
  return { params, query, rawBody, body, idempotencyKey };
}

/** Applies an injected fault, runs the operation, lets the caller record it, then answers or drops. */
async function perform(
  world: World,
  route: Route,
  principal: Principal,
  input: Input,
  response: ServerResponse,
  requestId: string,
  record?: (reply: Reply, fault: ActiveFault | undefined) => void,
): Promise<Reply & { headers?: Record<string, string>; dropped?: boolean }> {
  const fault = world.faults.take(route.operation);
  if (fault?.latencyMs !== undefined) await sleep(fault.latencyMs);
  if (fault?.status !== undefined) return errorReply(injected(fault, world), requestId);
  let reply: Reply & { headers?: Record<string, string> };
  try {
    reply = route.handle({
      world,
      principal,
      body: input.body,
      query: input.query,
      now: world.settle(),
      param: (name) => input.params.get(name) ?? "",
    });
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    reply = errorReply(error, requestId);
  }
  if (reply.binary === undefined) record?.(reply, fault);
  if (fault?.dropResponse === true) {
    response.destroy();
    return { ...reply, dropped: true };
  }
  return reply;
}

function errorReply(error: ApiError, requestId: string): Reply & { headers: Record<string, string> } {
  return { status: error.status, body: errorBody(error, requestId), headers: error.headers };
}

function readIdempotencyKey(request: IncomingMessage): string | undefined {
  const value = request.headers["idempotency-key"];
  if (value === undefined) return undefined;
  const key = Array.isArray(value) ? value.join(",") : value;
  const problem = checkIdempotencyKey(key);
  if (problem !== undefined) throw validationFailed([{ path: "header:Idempotency-Key", message: problem }]);
  return key;
}

/** Operations without a body accept nothing, or an empty object. */
function noBody(raw: unknown): undefined {
  if (raw === undefined) return undefined;
  if (raw !== null && typeof raw === "object" && !Array.isArray(raw)) {
    const keys = Object.keys(raw);
    if (keys.length === 0) return undefined;
    throw validationFailed(keys.map((key) => ({ path: key, message: `unknown field "${key}"` })));
  }
  throw validationFailed([{ path: "body", message: "this operation takes no body" }]);
}

const injectedCodes: Record<number, string> = {
  500: "internal_error",
  502: "bad_gateway",
  503: "service_unavailable",
  504: "gateway_timeout",
};

function injected(fault: ActiveFault, world: World): ApiError {
  const status = fault.status ?? 500;
  if (status === 429) return rateLimited(fault.retryAfterSec ?? world.clock.toWallSeconds(1000));
  const code = injectedCodes[status] ?? (status >= 500 ? "internal_error" : "injected_fault");
  const headers: Record<string, string> =
    fault.retryAfterSec === undefined ? {} : { "Retry-After": String(fault.retryAfterSec) };
  return new ApiError(status, code, `injected fault ${fault.id} answered ${status}`, {}, headers);
}
