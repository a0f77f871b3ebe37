/**
 * A seeded random source (mulberry32). Every choice the chaos suite makes comes from one of these,
 * forked by purpose from the run's seed, so a run replays its plan from `--seed` alone.
 */
export class Random {
  #state: number;

  constructor(seed: number) {
    this.#state = seed >>> 0;
  }

  /** An independent stream for one purpose: the same seed and name give the same stream. */
  static forPurpose(seed: number, purpose: string): Random {
    let hash = 2_166_136_261 ^ seed;
    for (const char of purpose) hash = Math.imul(hash ^ char.charCodeAt(0), 16_777_619);
    return new Random(hash);
  }

  /** A number in [0, 1). */
  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  }

  /** A number in [low, high). */
  between(low: number, high: number): number {
    return low + this.next() * (high - low);
  }

  /** A whole number in [low, high]. */
  int(low: number, high: number): number {
    return Math.floor(this.between(low, high + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.next() * items.length)];
    if (item === undefined) throw new RangeError("pick from an empty list");
    return item;
  }

  /** A shuffled copy. */
  shuffle<T>(items: readonly T[]): T[] {
    const copy = [...items];
    for (let i = copy.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
    }
    return copy;
  }
}
