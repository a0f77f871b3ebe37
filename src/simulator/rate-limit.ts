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
  /** When the binding bucket next has more room (simulated ms). */
  resetAt: number;
}

export interface WindowRules {
  /** Fixed windows aligned to multiples of the window length, instead of a sliding window. */
  fixedWindows: boolean;
  /** Refused requests don't count. */
  rejectedRequestsFree: boolean;
}

/** How many request times a bucket remembers, as a multiple of its limit (bounds memory under a flood). */
const REMEMBERED = 10;

/**
 * Per-bucket request times on the simulated clock. A request counts once in every bucket it names;
 * it is allowed only when every bucket has room. With a sliding window a burst across any boundary
 * gets nothing extra, and the headers are exact: `remaining` can be sent now, and at `resetAt` the
 * oldest counted request leaves the window.
 */
export class RateLimiter {
  readonly limits: RateLimits;
  readonly #buckets = new Map<string, number[]>();

  constructor(limits: RateLimits) {
    this.limits = limits;
  }

  take(buckets: readonly { key: string; limit: number }[], now: number, rules: WindowRules): RateDecision {
    const windowMs = this.limits.windowSec * 1000;
    const from = rules.fixedWindows ? Math.floor(now / windowMs) * windowMs : now - windowMs;
    const current = buckets.map(({ key, limit }) => ({ hits: this.#hits(key, from, rules), limit }));
    const allowed = current.every(({ hits, limit }) => hits.length < limit);
    if (allowed || !rules.rejectedRequestsFree) {
      for (const { hits, limit } of current) {
        hits.push(now);
        if (hits.length > limit * REMEMBERED) hits.shift();
      }
    }
    let binding = current[0];
    for (const entry of current) {
      if (binding === undefined || entry.limit - entry.hits.length < binding.limit - binding.hits.length) {
        binding = entry;
      }
    }
    if (binding === undefined) return { allowed, limit: 0, remaining: 0, resetAt: now };
    const { hits, limit } = binding;
    const resetAt = rules.fixedWindows
      ? from + windowMs
      : (hits[Math.max(0, hits.length - limit)] ?? now) + windowMs;
    return { allowed, limit, remaining: Math.max(0, limit - hits.length), resetAt };
  }

  /** The bucket's request times inside the current window, oldest first. */
  #hits(key: string, from: number, rules: WindowRules): number[] {
    let hits = this.#buckets.get(key);
    if (hits === undefined) {
      hits = [];
      this.#buckets.set(key, hits);
    }
    // A fixed window keeps times at or after its start; a sliding one those strictly after now - window.
    const expired = (at: number) => (rules.fixedWindows ? at < from : at <= from);
    let drop = 0;
    while (drop < hits.length && expired(hits[drop] ?? 0)) drop++;
    if (drop > 0) hits.splice(0, drop);
    return hits;
  }
}
