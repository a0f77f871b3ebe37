export interface RateLimits {
  perCredential: number;
  perUser: number;
  windowSec: number;
}

export const defaultRateLimits: RateLimits = { perCredential: 300, perUser: 600, windowSec: 60 };

export interface RateDecision {
  allowed: boolean;
  /** The binding bucket: the one with the fewest requests left. */
  limit: number;
  remaining: number;
  resetAt: number;
}

interface Bucket {
  windowStart: number;
  count: number;
}

/** Fixed windows on the simulated clock; one request counts once in every bucket it names. */
export class RateLimiter {
  readonly limits: RateLimits;
  readonly #buckets = new Map<string, Bucket>();

  constructor(limits: RateLimits) {
    this.limits = limits;
  }

  take(buckets: readonly { key: string; limit: number }[], now: number): RateDecision {
    const windowMs = this.limits.windowSec * 1000;
    const windowStart = Math.floor(now / windowMs) * windowMs;
    const current = buckets.map(({ key, limit }) => {
      let bucket = this.#buckets.get(key);
      if (bucket === undefined || bucket.windowStart !== windowStart) {
        bucket = { windowStart, count: 0 };
        this.#buckets.set(key, bucket);
      }
      return { bucket, limit };
    });
    const allowed = current.every(({ bucket, limit }) => bucket.count < limit);
    if (allowed) for (const { bucket } of current) bucket.count++;
    let limit = 0;
    let remaining = Number.POSITIVE_INFINITY;
    for (const entry of current) {
      const left = Math.max(0, entry.limit - entry.bucket.count);
      if (left < remaining) {
        remaining = left;
        limit = entry.limit;
      }
    }
    return { allowed, limit, remaining, resetAt: windowStart + windowMs };
  }
}
