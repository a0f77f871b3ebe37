import type { z } from "zod";
import { type BackoffPolicy, retryDelayMs } from "./backoff.ts";
import { mayRepeat, networkFailureOf } from "./classify.ts";
import { type Clock, sleep } from "./clock.ts";
import { HostingError } from "./errors.ts";
import { type ResponseFacts, readHeaders } from "./headers.ts";
import type { Permit, Priority, RateLimiter } from "./limiter.ts";
import type { HostingLogger, HostingObserver } from "./observer.ts";
import { buildRequest, type CallInput } from "./request.ts";
import { abortedError, apiError, networkError, parseResponse } from "./responses.ts";
import type { CallKind, Route } from "./routes.ts";
import type { HttpRequest, HttpResponse, Transport } from "./transport.ts";

export interface CallOptions {
  /** `user` for work a person asked for, `background` for periodic drift checks (default `user`). */
  priority?: Priority;
  /** Abandons the call (failing with `aborted`); once the request left, the service may have acted. */
  signal?: AbortSignal;
  /** Called as each attempt leaves, i.e. each time the call spends the key's budget. */
  onSend?: () => void;
  /**
   * Shared by the calls of one scoped view (one reconcile): once one of them was admitted, its
   * background calls may wait `begunWaitFactor` times longer for the budget, so a drift check that
   * has begun is not abandoned half way, its first reads spent for nothing.
   */
  begun?: { admitted: boolean };
  /**
   * The resource the call is made for (one reconcile's): its background calls turned away by the
   * budget keep their place, so the resources turned away longest go first.
   */
  resource?: string;
  /** How the caller awaits the service's answer (a reconcile gives its worker back meanwhile). */
  whileWaiting?: <T>(answer: Promise<T>) => Promise<T>;
}

/** How much longer than maxBudgetWaitMs a begun reconcile's background call may wait. */
export const begunWaitFactor = 10;

/** About the response a result came from; not enumerable, so spreading or serializing a result drops it. */
export interface ResponseMetadata {
  status: number;
  /** `X-Request-Id`, to quote in status and support requests. */
  requestId: string | undefined;
  /** The service replayed a recorded response for this Idempotency-Key. */
  replayed: boolean;
  attempts: number;
}

export type WithMetadata<T> = T & { readonly $metadata: ResponseMetadata };

export interface CallerDeps {
  transport: Transport;
  /** The service's base URL, named in network errors (never a secret: it carries no user info). */
  baseUrl: string;
  apiKey: string;
  credentialId: string;
  credentialLimiter: RateLimiter;
  /** The user's limiter once `/me` told who the user is. */
  userLimiter: () => RateLimiter | undefined;
  observer: HostingObserver;
  logger: HostingLogger | undefined;
  clock: Clock;
  backoff: BackoffPolicy;
  random: () => number;
  timeoutsMs: Record<CallKind, number>;
  userAgent: string;
  /** See HostingClientOptions.maxBudgetWaitMs. */
  maxBudgetWaitMs?: number;
}

export type Caller = <R extends Route>(
  route: R,
  input: CallInput,
  options?: CallOptions,
) => Promise<{ data: z.output<R["response"]>; metadata: ResponseMetadata }>;

/** The request pipeline: budget → send → classify → parse, repeated only where that is safe. */
export function createCaller(deps: CallerDeps): Caller {
  return async <R extends Route>(route: R, input: CallInput, options: CallOptions = {}) => {
    if (route.safety === "with-key" && !input.idempotencyKey) {
      throw new TypeError(`${route.operation} needs an Idempotency-Key: creates always send one`);
    }
    const request = buildRequest(deps, route, input, options.signal);
    for (let attempt = 1; ; attempt++) {
      try {
        const { data, response, facts } = await attemptOnce(deps, route, request, options, attempt);
        return {
          data: data as z.output<R["response"]>,
          metadata: {
            status: response.status,
            requestId: facts.requestId,
            replayed: facts.replayed,
            attempts: attempt,
          },
        };
      } catch (error) {
        const delayMs = error instanceof HostingError ? retryDelay(deps, error, attempt, options) : undefined;
        if (delayMs === undefined) throw error;
        deps.logger?.warn(
          {
            operation: route.operation,
            code: (error as HostingError).code,
            attempt,
            delayMs: Math.round(delayMs),
          },
          "retrying hosting call",
        );
        await sleep(deps.clock, delayMs, options.signal).catch((reason: unknown) => {
          throw abortedError(route, false, reason);
        });
      }
    }
  };
}

function retryDelay(
  deps: CallerDeps,
  error: HostingError,
  attempt: number,
  options: CallOptions,
): number | undefined {
  if (options.signal?.aborted) return undefined;
  if (attempt >= deps.backoff.maxAttempts || !mayRepeat(error.kind)) return undefined;
  if (error.retryAfterSec !== undefined && error.retryAfterSec * 1000 > deps.backoff.maxServerWaitMs)
    return undefined;
  return retryDelayMs(attempt, error.retryAfterSec, deps.backoff, deps.random);
}

async function attemptOnce(
  deps: CallerDeps,
  route: Route,
  request: HttpRequest,
  options: CallOptions,
  attempt: number,
): Promise<{ data: unknown; response: HttpResponse; facts: ResponseFacts }> {
  const labels = { operation: route.operation, credential: deps.credentialId };
  if (request.signal?.aborted) throw abortedError(route, false, request.signal.reason);
  throwIfPausedLong(deps, route);
  const permits = await acquirePermits(deps, options).catch((error: unknown) => {
    throw options.signal?.aborted ? abortedError(route, false, error) : error;
  });
  const waitSec = Math.max(...permits.map((p) => p.waitedMs)) / 1000;
  deps.observer.onLimiterWait?.({ ...labels, priority: options.priority ?? "user", waitSec });

  const started = deps.clock.now();
  const durationSec = () => (deps.clock.now() - started) / 1000;
  let response: HttpResponse;
  try {
    options.onSend?.();
    const answer = deps.transport.send(request);
    response = await (options.whileWaiting === undefined ? answer : options.whileWaiting(answer));
  } catch (cause) {
    if (request.signal?.aborted) {
      for (const permit of permits) permit.release();
      deps.observer.onRequest?.({
        ...labels,
        status: undefined,
        code: "aborted",
        durationSec: durationSec(),
        attempt,
      });
      throw abortedError(route, true, cause);
    }
    const failure = networkFailureOf(cause);
    for (const permit of permits) failure === "connect_failed" ? permit.cancel() : permit.release();
    deps.observer.onRequest?.({
      ...labels,
      status: undefined,
      code: failure,
      durationSec: durationSec(),
      attempt,
    });
    throw networkError(
      route,
      failure,
      cause,
      `${deps.baseUrl.replace(/\/+$/, "")}${request.path.split("?")[0]}`,
    );
  }

  const facts = readHeaders(response.headers, deps.clock.now());
  // Corrections go in before the places are released, so the next admission already obeys them.
  correctBudget(deps, permits, response.status, facts);
  for (const permit of permits) permit.release();
  const { status } = response;
  deps.observer.onRequest?.({ ...labels, status, code: String(status), durationSec: durationSec(), attempt });
  deps.logger?.debug(
    { ...labels, path: request.path.split("?")[0], status, requestId: facts.requestId, attempt },
    "hosting call",
  );

  if (status >= 200 && status < 300) {
    const data = parseResponse(route, response, facts);
    if (facts.replayed) deps.observer.onReplay?.(labels);
    return { data, response, facts };
  }
  if (status === 429) deps.observer.onRateLimited?.({ ...labels, retryAfterSec: facts.retryAfterSec });
  throw apiError(route, response, facts, deps.apiKey);
}

function correctBudget(deps: CallerDeps, permits: Permit[], status: number, facts: ResponseFacts): void {
  if (facts.budget !== undefined) {
    permits[0]?.observe(facts.budget);
    const { limit, remaining, resetAtMs } = facts.budget;
    deps.observer.onBudget?.({ credential: deps.credentialId, limit, remaining, resetAtMs });
  }
  if (status === 429) {
    // The service's wait holds for the credential and for its user's other credentials alike.
    const until = deps.clock.now() + (facts.retryAfterSec ?? 1) * 1000;
    deps.credentialLimiter.pauseUntil(until);
    deps.userLimiter()?.pauseUntil(until);
  }
}

/**
 * A call never waits out a long pause the service asked for (a 429's Retry-After) inside the
 * caller: it fails at once as rate_limited with the time left, so a controller's worker is free
 * for other work and the reconcile comes back when the budget does.
 */
function throwIfPausedLong(deps: CallerDeps, route: Route): void {
  const pausedMs = Math.max(deps.credentialLimiter.pausedForMs(), deps.userLimiter()?.pausedForMs() ?? 0);
  if (pausedMs <= deps.backoff.maxServerWaitMs) return;
  throw new HostingError({
    code: "rate_limited",
    kind: "retryable",
    operation: route.operation,
    message: `the service asked to wait ${Math.ceil(pausedMs / 1000)} s before the next call`,
    retryAfterSec: Math.ceil(pausedMs / 1000),
  });
}

/** The credential's place first, then the user's; the credential's is given back if the wait is abandoned. */
async function acquirePermits(deps: CallerDeps, options: CallOptions): Promise<Permit[]> {
  const priority = options.priority ?? "user";
  const bound = budgetWaitBound(deps, options, priority);
  // A begun reconcile's next read finishes what it began: it waits (longer), not in the line again.
  const resource = options.begun?.admitted === true ? undefined : options.resource;
  const credential = await deps.credentialLimiter.acquire(priority, options.signal, bound, resource);
  const userLimiter = deps.userLimiter();
  let permits = [credential];
  if (userLimiter !== undefined) {
    try {
      permits = [credential, await userLimiter.acquire(priority, options.signal, bound, resource)];
    } catch (error) {
      credential.cancel();
      throw error;
    }
  }
  if (options.begun !== undefined) options.begun.admitted = true;
  return permits;
}

function budgetWaitBound(deps: CallerDeps, options: CallOptions, priority: Priority): number | undefined {
  if (deps.maxBudgetWaitMs === undefined) return undefined;
  const begun = priority === "background" && options.begun?.admitted === true;
  return begun ? deps.maxBudgetWaitMs * begunWaitFactor : deps.maxBudgetWaitMs;
}
