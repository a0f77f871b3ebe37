import type { IncomingMessage, ServerResponse } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { z } from "zod";
import type { Principal } from "../auth.ts";
import { ApiError, validationFailed } from "../errors.ts";
import type { ActiveFault } from "../faults.ts";
import { admit, rateLimited } from "../gate.ts";
import { findGuesses } from "../guesses.ts";
import { checkIdempotencyKey, fingerprint, requestInProgress } from "../idempotency.ts";
import { requireScopes } from "../scopes.ts";
import type { World } from "../store/world.ts";
import { unbindCursor, withBoundCursor } from "./cursor-binding.ts";
import { decodeParams, parseJsonBody, parseWith, queryObject, readBody } from "./inputs.ts";
import type { Reply, Route } from "./route.ts";
import type { Router } from "./router.ts";
import { withUnknownFields } from "./unknown-fields.ts";

export interface Outcome extends Reply {
  headers: Record<string, string>;
  operation: string | null;
  keyId: string | null;
  replayed: boolean;
  dropped: boolean;
}

/** One call of an operation, as REST or MCP received it, after authentication and rate limiting. */
export interface Call {
  route: Route;
  principal: Principal;
  /** Path values, already decoded and checked. */
  params: Map<string, string>;
  query: Record<string, string | string[]>;
  /** Reads and parses the JSON body (undefined when none was sent); called once, after the scope check. */
  readBody(): Promise<unknown>;
  /** The Idempotency-Key as sent; undefined when absent. */
  idempotencyKey: string | undefined;
  /** Checks that come right after the scope check (a tool's confirmation); throws an ApiError. */
  afterScopes?: () => void;
}

export type Executed = Reply & { headers: Record<string, string>; replayed: boolean; dropped: boolean };

interface Input {
  query: unknown;
  body: unknown;
}

const emptyQuery = z.object({}).strict();

export function errorBody(error: ApiError, requestId: string): unknown {
  return { error: { code: error.code, message: error.message, requestId, ...error.extra } };
}

/**
 * Serves one /v1 request in the documented order: authentication and rate limit, route, then
 * `execute`. Bad input always ends as an error reply; only a bug throws.
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
    const call: Call = {
      route,
      principal,
      params,
      query: queryObject(search),
      readBody: async () => parseJsonBody(request, await readBody(request)),
      idempotencyKey: headerValue(request.headers["idempotency-key"]),
    };
    return merge(outcome, await execute(world, call, requestId, () => response.destroy()));
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return merge(outcome, errorReply(error, requestId));
  }
}

/**
 * Runs one operation for an admitted principal: frozen account, scopes, inputs, idempotency,
 * injected faults, the time a create takes, then the operation. `drop` destroys the connection
 * when a fault says to act and then not answer.
 */
export async function execute(
  world: World,
  call: Call,
  requestId: string,
  drop: () => void,
): Promise<Executed> {
  const { route, principal } = call;
  const plain = { headers: {}, replayed: false, dropped: false };
  try {
    // An injected 429 refuses like the real limit: before anything else is checked or counted.
    const limit = world.faults.take(route.operation, () => world.random(), principal.key.id, "admission");
    if (limit !== undefined) {
      if (limit.latencyMs !== undefined) await sleep(limit.latencyMs);
      throw injected(limit, world);
    }
    if (principal.user.frozen && route.method !== "GET") {
      throw new ApiError(403, "account_frozen", "this account is frozen; only reads are allowed");
    }
    requireScopes(principal.key.scopes, route.scopes);
    call.afterScopes?.();
    const key = idempotencyKey(world, route, call.idempotencyKey);
    const rawBody = await call.readBody();
    if (key === undefined) {
      const input = parseInput(world, route, call, rawBody, principal.key.id);
      return { ...plain, ...(await perform(world, route, principal, call, input, requestId, drop)) };
    }
    return { ...plain, ...(await executeKeyed(world, call, key, rawBody, requestId, drop)) };
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return { ...plain, ...errorReply(error, requestId) };
  }
}

/**
 * The query (with its cursor unbound) and the body, checked by the route's schemas. Unless the
 * profile accepts samples, a value or field name the spec doesn't show is refused first.
 */
function parseInput(world: World, route: Route, call: Call, rawBody: unknown, keyId: string): Input {
  if (!world.profile.sampleValues) {
    const guesses = findGuesses(route.operation, rawBody, call.query);
    if (guesses.length > 0) throw validationFailed(guesses);
  }
  const cursor = call.query.cursor;
  const owner = { operation: route.operation, params: call.params, keyId };
  const rawQuery =
    typeof cursor === "string" ? { ...call.query, cursor: unbindCursor(cursor, owner) } : call.query;
  return {
    query: parseWith(route.query ?? emptyQuery, rawQuery, "query"),
    body: route.body === undefined ? noBody(rawBody) : parseWith(route.body, rawBody, ""),
  };
}

/**
 * An idempotent operation with its key: replay, conflict, in progress, or run and record. Every
 * answer below 500 from here on is recorded, a refusal of the arguments (400) as much as a 402 or
 * 409, unless `successOnlyRecorded` keeps refusals unrecorded.
 */
async function executeKeyed(
  world: World,
  call: Call,
  key: string,
  rawBody: unknown,
  requestId: string,
  drop: () => void,
): Promise<Executed> {
  const { route, principal } = call;
  const plain = { headers: {}, replayed: false, dropped: false };
  let input: Input | undefined;
  let refusal: ApiError | undefined;
  try {
    input = parseInput(world, route, call, rawBody, principal.key.id);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    refusal = error;
  }
  const now = world.settle();
  const delayMs = input === undefined ? 0 : createDelayMs(world, route, input.body);
  const lenient = world.profile.idempotencyPerOperation;
  const scope = lenient ? `${principal.key.id}\n${route.operation}\n${key}` : `${principal.key.id}\n${key}`;
  const args = fingerprint({
    operation: route.operation,
    params: Object.fromEntries(call.params),
    query: call.query,
    body: rawBody ?? null,
  });
  const readyAt = Date.now() + world.clock.toWallMs(delayMs);
  const previous = world.idempotency.begin(scope, args, now, readyAt);
  if (previous.kind === "in_progress") {
    throw requestInProgress(Math.max(1, Math.ceil((previous.readyAt - Date.now()) / 1000)));
  }
  if (previous.kind === "replay") {
    return { ...plain, ...previous.response, headers: { "Idempotent-Replayed": "true" }, replayed: true };
  }
  const record = (reply: Reply, fault?: ActiveFault) => {
    const forget = fault?.dropResponse === true && fault.forgetIdempotency === true;
    const refused = reply.status >= 300 && world.profile.successOnlyRecorded;
    if (reply.status < 500 && !forget && !refused) {
      world.idempotency.complete(scope, { status: reply.status, body: reply.body });
    }
  };
  // This request owns the key until it records or abandons it.
  try {
    if (input === undefined) {
      const reply = errorReply(refusal ?? validationFailed([]), requestId);
      record(reply);
      return { ...plain, ...reply };
    }
    const result = await perform(world, route, principal, call, input, requestId, drop, delayMs, {
      postpone: (ms) => world.idempotency.postpone(scope, ms),
      record,
    });
    return { ...plain, ...result };
  } finally {
    world.idempotency.abandon(scope);
  }
}

function merge(outcome: Outcome, reply: Executed | (Reply & { headers: Record<string, string> })): Outcome {
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

/** The checked key of an idempotent operation; required unless the profile says otherwise. */
function idempotencyKey(world: World, route: Route, key: string | undefined): string | undefined {
  if (route.idempotent !== true) return undefined;
  if (key === undefined) {
    if (world.profile.optionalIdempotencyKey) return undefined;
    throw validationFailed([
      {
        path: "header:Idempotency-Key",
        message:
          "is required on this operation: send a key unique to this create (1 to 255 characters, no whitespace)",
      },
    ]);
  }
  const problem = checkIdempotencyKey(key);
  if (problem !== undefined) throw validationFailed([{ path: "header:Idempotency-Key", message: problem }]);
  return key;
}

/** Simulated milliseconds a create or order takes before it acts and answers. */
function createDelayMs(world: World, route: Route, body: unknown): number {
  if (world.profile.instantCreates || route.takesTime === undefined || !route.takesTime(body)) return 0;
  const { createMin, createMax } = world.timings;
  const low = Math.min(createMin, createMax);
  return Math.round((low + world.random() * (Math.max(createMin, createMax) - low)) * 1000);
}

/** What an idempotent request does with its key while it runs. */
interface KeyedRequest {
  /** The first answer comes `ms` (wall clock) later than expected. */
  postpone?: (ms: number) => void;
  /** Records the answer for replays. */
  record?: (reply: Reply, fault: ActiveFault | undefined) => void;
}

/** Applies an injected fault, waits out the create time, runs the operation, lets the caller record it, then answers or drops. */
async function perform(
  world: World,
  route: Route,
  principal: Principal,
  call: Call,
  input: Input,
  requestId: string,
  drop: () => void,
  delayMs = 0,
  keyed: KeyedRequest = {},
): Promise<Reply & { headers?: Record<string, string>; dropped?: boolean }> {
  const fault = world.faults.take(route.operation, () => world.random(), principal.key.id);
  if (fault?.latencyMs !== undefined) {
    keyed.postpone?.(fault.latencyMs);
    await sleep(fault.latencyMs);
  }
  if (fault?.status !== undefined) return errorReply(injected(fault, world), requestId);
  if (delayMs > 0) await sleep(world.clock.toWallMs(delayMs));
  let reply: Reply & { headers?: Record<string, string> };
  try {
    reply = route.handle({
      world,
      principal,
      body: input.body,
      query: input.query,
      now: world.settle(),
      param: (name) => call.params.get(name) ?? "",
    });
    reply = withBoundCursor(reply, {
      operation: route.operation,
      params: call.params,
      keyId: principal.key.id,
    });
    if (reply.body !== undefined && !world.profile.documentedFieldsOnly) {
      reply = { ...reply, body: withUnknownFields(reply.body, world.nextSeq()) };
    }
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    reply = errorReply(error, requestId);
  }
  if (reply.binary === undefined) keyed.record?.(reply, fault);
  if (fault?.dropResponse === true) {
    drop();
    return { ...reply, dropped: true };
  }
  return reply;
}

function errorReply(error: ApiError, requestId: string): Reply & { headers: Record<string, string> } {
  return { status: error.status, body: errorBody(error, requestId), headers: error.headers };
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(",") : value;
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
