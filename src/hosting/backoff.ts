export interface BackoffPolicy {
  /** Attempts in all, the first included. */
  maxAttempts: number;
  baseMs: number;
  capMs: number;
  /** A server-requested wait longer than this is not slept through: the error goes to the caller. */
  maxServerWaitMs: number;
}

export const defaultBackoff: BackoffPolicy = {
  maxAttempts: 4,
  baseMs: 200,
  capMs: 10_000,
  maxServerWaitMs: 60_000,
};

/**
 * Wait before retry number `retry` (1 for the first retry): capped exponential backoff with "equal
 * jitter" (half fixed, half random) so synchronized clients spread out, yet never wait nearly zero.
 */
export function backoffMs(retry: number, policy: BackoffPolicy, random: () => number): number {
  const ceiling = Math.min(policy.capMs, policy.baseMs * 2 ** Math.max(0, retry - 1));
  return ceiling / 2 + random() * (ceiling / 2);
}

/**
 * Wait before a retry, honouring the service's `Retry-After` / `retryAfterSec`: never less than it
 * asked, plus a little jitter so clients told the same second don't return together.
 */
export function retryDelayMs(
  retry: number,
  retryAfterSec: number | undefined,
  policy: BackoffPolicy,
  random: () => number,
): number {
  const backoff = backoffMs(retry, policy, random);
  if (retryAfterSec === undefined) return backoff;
  const serverMs = retryAfterSec * 1000;
  return Math.max(backoff, serverMs + random() * Math.min(1000, serverMs / 10));
}
