import { authenticate, type Principal } from "./auth.ts";
import { ApiError } from "./errors.ts";
import type { RateDecision } from "./rate-limit.ts";
import type { World } from "./store/world.ts";

export interface Admission {
  principal: Principal | undefined;
  /** Headers every response carries: X-RateLimit-*. */
  headers: Record<string, string>;
  /** Set when the request must be refused: 401 or 429. */
  error: ApiError | undefined;
}

/**
 * The front door shared by every interface (REST and MCP): authenticate, then count the request
 * against the per-credential and per-user windows. Unauthenticated requests are counted per client
 * address. `oauth` admits OAuth access tokens too (the MCP server).
 */
export function admit(
  world: World,
  request: { authorization: string | undefined; clientAddress: string; oauth?: boolean },
  now: number,
): Admission {
  const { perCredential, perUser } = world.limiter.limits;
  let principal: Principal | undefined;
  let authError: ApiError | undefined;
  try {
    principal = authenticate(world, request.authorization, now, request.oauth === true);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    authError = error;
  }
  const buckets =
    principal === undefined
      ? [{ key: `addr:${request.clientAddress}`, limit: perCredential }]
      : [
          { key: `key:${principal.key.id}`, limit: perCredential },
          { key: `user:${principal.user.id}`, limit: perUser },
        ];
  const decision = world.limiter.take(buckets, now, world.profile);
  const headers = rateHeaders(world, decision);
  if (!decision.allowed) {
    const retryAfterSec = world.clock.toWallSeconds(decision.resetAt - now);
    headers["Retry-After"] = String(retryAfterSec);
    return { principal, headers, error: rateLimited(retryAfterSec) };
  }
  return { principal, headers, error: authError };
}

export function rateLimited(retryAfterSec: number): ApiError {
  return new ApiError(
    429,
    "rate_limited",
    `too many requests; retry after ${retryAfterSec} s`,
    { retryAfterSec },
    { "Retry-After": String(retryAfterSec) },
  );
}

function rateHeaders(world: World, decision: RateDecision): Record<string, string> {
  return {
    "X-RateLimit-Limit": String(decision.limit),
    "X-RateLimit-Remaining": String(decision.remaining),
    "X-RateLimit-Reset": String(world.clock.toWallUnixSeconds(decision.resetAt)),
  };
}
