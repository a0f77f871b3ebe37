/** Decides how long a key waits before its next retry. */
export interface RateLimiter {
  /** The delay before `key` may run again; counts one more failure for it. */
  when(key: string): number;
  /** Clears `key`'s failures (it succeeded, or it won't be retried). */
  forget(key: string): void;
  /** How many failures `key` has had since it was last forgotten. */
  retries(key: string): number;
}

/** Per-key exponential backoff: base·2^failures, capped (client-go: 5 ms to 1000 s). */
export class ExponentialRateLimiter implements RateLimiter {
  readonly #baseMs: number;
  readonly #maxMs: number;
  readonly #failures = new Map<string, number>();

  constructor(baseMs = 5, maxMs = 1_000_000) {
    this.#baseMs = baseMs;
    this.#maxMs = maxMs;
  }

  when(key: string): number {
    const failures = this.#failures.get(key) ?? 0;
    this.#failures.set(key, failures + 1);
    return Math.min(this.#baseMs * 2 ** failures, this.#maxMs);
  }

  forget(key: string): void {
    this.#failures.delete(key);
  }

  retries(key: string): number {
    return this.#failures.get(key) ?? 0;
  }
}

/**
 * An overall token bucket shared by all keys (client-go: 10 per second, burst 100). Each call
 * reserves a token; when the bucket is empty the delay is the time until that token is earned.
 */
export class TokenBucketRateLimiter implements RateLimiter {
  readonly #perSecond: number;
  readonly #burst: number;
  readonly #now: () => number;
  #tokens: number;
  #updatedAt: number;

  constructor(perSecond = 10, burst = 100, now: () => number = () => Date.now()) {
    this.#perSecond = perSecond;
    this.#burst = burst;
    this.#now = now;
    this.#tokens = burst;
    this.#updatedAt = now();
  }

  when(): number {
    const now = this.#now();
    this.#tokens = Math.min(this.#burst, this.#tokens + ((now - this.#updatedAt) / 1000) * this.#perSecond);
    this.#updatedAt = now;
    this.#tokens -= 1;
    return this.#tokens >= 0 ? 0 : (-this.#tokens / this.#perSecond) * 1000;
  }

  forget(): void {}

  retries(): number {
    return 0;
  }
}

/** The longest delay of several limiters. */
export class MaxOfRateLimiter implements RateLimiter {
  readonly #limiters: readonly RateLimiter[];

  constructor(...limiters: RateLimiter[]) {
    this.#limiters = limiters;
  }

  when(key: string): number {
    return Math.max(0, ...this.#limiters.map((l) => l.when(key)));
  }

  forget(key: string): void {
    for (const limiter of this.#limiters) limiter.forget(key);
  }

  retries(key: string): number {
    return Math.max(0, ...this.#limiters.map((l) => l.retries(key)));
  }
}

export interface ControllerRateLimiterOptions {
  baseDelayMs?: number;
  maxDelayMs?: number;
  perSecond?: number;
  burst?: number;
  now?: () => number;
}

/** client-go's default controller limiter: per-key backoff combined with the overall bucket. */
export function controllerRateLimiter(options: ControllerRateLimiterOptions = {}): RateLimiter {
  return new MaxOfRateLimiter(
    new ExponentialRateLimiter(options.baseDelayMs, options.maxDelayMs),
    new TokenBucketRateLimiter(options.perSecond, options.burst, options.now),
  );
}
