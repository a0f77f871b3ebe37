export interface BackoffOptions {
  initialMs: number;
  maxMs: number;
  factor: number;
  /** Up to this fraction of the delay is added at random, so restarting clients don't align. */
  jitter: number;
  /** After this long without a failure the delay starts again from `initialMs`. */
  resetAfterMs: number;
}

/** client-go's reflector backoff: 800 ms doubling to 30 s, full jitter, reset after 2 healthy minutes. */
export const reflectorBackoff: BackoffOptions = {
  initialMs: 800,
  maxMs: 30_000,
  factor: 2,
  jitter: 1,
  resetAfterMs: 120_000,
};

/** Exponential backoff for a retry loop; `next()` is the delay before the next attempt. */
export class Backoff {
  readonly #options: BackoffOptions;
  readonly #now: () => number;
  readonly #random: () => number;
  #current: number;
  #lastFailureAt = Number.NEGATIVE_INFINITY;

  constructor(
    options: BackoffOptions,
    now: () => number = () => Date.now(),
    random: () => number = Math.random,
  ) {
    this.#options = options;
    this.#now = now;
    this.#random = random;
    this.#current = options.initialMs;
  }

  next(): number {
    const now = this.#now();
    if (now - this.#lastFailureAt > this.#options.resetAfterMs) this.#current = this.#options.initialMs;
    this.#lastFailureAt = now;
    const delay = this.#current * (1 + this.#options.jitter * this.#random());
    this.#current = Math.min(this.#current * this.#options.factor, this.#options.maxMs);
    return Math.min(delay, this.#options.maxMs * (1 + this.#options.jitter));
  }
}
