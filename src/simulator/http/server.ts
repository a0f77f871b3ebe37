import type { IncomingMessage, ServerResponse } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { z } from "zod";
import { ApiError, validationFailed } from "../errors.ts";
import type { ActiveFault } from "../faults.ts";
import { admit } from "../gate.ts";
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

const emptyQuery = z.object({}).strict();
const IN_PROGRESS_RETRY_SEC = 1;

export function errorBody(error: ApiError, requestId: string): unknown {
  return { error: { code: error.code, message: error.message, requestId, ...error.extra } };
}

/** Serves one /v1 request through the documented check order; never throws for bad input. */
export async function serveApi(
  world: World,
  router: Router<Route>,
  request: IncomingMessage,
  response: ServerResponse,
  path: string,
  search: string,
  requestId: string,
): Promise<Outcome> {
  let now = world.settle();
  const method = request.method ?? "GET";
  const admission = admit(
    world,
    {
      authorization: request.headers.authorization,
      clientAddress: request.socket.remoteAddress ?? "unknown",
    },
    now,
  );
  const outcome: Outcome = {
    status: 500,
    headers: admission.headers,
    operation: null,
    keyId: admission.principal?.key.id ?? null,
    replayed: false,
    dropped: false,
  };
  const fail = (error: ApiError): Outcome => {
    Object.assign(outcome.headers, error.headers);
    return { ...outcome, status: error.status, body: errorBody(error, requestId) };
  };
  let idempotencyScope: string | undefined;
  try {
    const principal = admission.principal;
    if (admission.error !== undefined || principal === undefined) {
      throw admission.error ?? new ApiError(401, "unauthorized", "no credential");
    }
    const match = router.match(method, path.slice("/v1".length));
    if (match.kind === "not_found") throw new ApiError(404, "not_found", `no operation at ${method} ${path}`);
    if (match.kind === "wrong_method") {
      const allow = match.allowed.join(", ");
      throw new ApiError(405, "method_not_allowed", `${path} accepts ${allow}`, {}, { Allow: allow });
    }
    const route = match.route;
    outcome.operation = route.operation;
    if (principal.user.frozen && method !== "GET") {
      throw new ApiError(403, "account_frozen", "this account is frozen; only reads are allowed");
    }
    requireScopes(principal.key.scopes, route.scopes);
    const params = decodeParams(match.params);
    const query = parseWith(route.query ?? emptyQuery, queryObject(search), "query");
    const idempotencyKey = route.idempotent === true ? readIdempotencyKey(request) : undefined;
    const rawBody = parseJsonBody(request, await readBody(request));
    const body = route.body === undefined ? noBody(rawBody) : parseWith(route.body, rawBody, "");

    if (idempotencyKey !== undefined) {
      const scope = `${principal.key.id}\n${route.operation}\n${idempotencyKey}`;
      const args = fingerprint({ params: Object.fromEntries(params), body: rawBody ?? null });
      const previous = world.idempotency.begin(scope, args, now, IN_PROGRESS_RETRY_SEC);
      if (previous.kind === "replay") {
        outcome.headers["Idempotent-Replayed"] = "true";
        return { ...outcome, ...previous.response, replayed: true };
      }
      // From here this request owns the key until it records or abandons it.
      idempotencyScope = scope;
    }

    const fault = world.faults.take(route.operation);
    if (fault?.latencyMs !== undefined) {
      await sleep(fault.latencyMs);
      now = world.settle();
    }
    if (fault?.status !== undefined) throw injected(fault, world);

    let result: Outcome;
    try {
      const reply = route.handle({
        world,
        principal,
        body,
        query,
        now,
        param: (name) => params.get(name) ?? "",
      });
      result = { ...outcome, ...reply };
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      result = fail(error);
    }
    if (idempotencyScope !== undefined) {
      const forget = fault?.dropResponse === true && fault.forgetIdempotency === true;
      if (result.status < 500 && !forget && result.binary === undefined) {
        world.idempotency.complete(idempotencyScope, { status: result.status, body: result.body });
      } else {
        world.idempotency.abandon(idempotencyScope);
      }
      idempotencyScope = undefined;
    }
    if (fault?.dropResponse === true) {
      response.destroy();
      return { ...result, dropped: true };
    }
    return result;
  } catch (error) {
    if (idempotencyScope !== undefined) world.idempotency.abandon(idempotencyScope);
    if (error instanceof ApiError) return fail(error);
    throw error;
  }
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
  429: "rate_limited",
  500: "internal_error",
  502: "bad_gateway",
  503: "service_unavailable",
  504: "gateway_timeout",
};

function injected(fault: ActiveFault, world: World): ApiError {
  const status = fault.status ?? 500;
  const code = injectedCodes[status] ?? (status >= 500 ? "internal_error" : "injected_fault");
  if (status === 429) {
    const retryAfterSec = fault.retryAfterSec ?? world.clock.toWallSeconds(1000);
    return new ApiError(
      429,
      code,
      `too many requests; retry after ${retryAfterSec} s`,
      { retryAfterSec },
      {
        "Retry-After": String(retryAfterSec),
      },
    );
  }
  const headers: Record<string, string> =
    fault.retryAfterSec === undefined ? {} : { "Retry-After": String(fault.retryAfterSec) };
  return new ApiError(status, code, `injected fault ${fault.id} answered ${status}`, {}, headers);
}
