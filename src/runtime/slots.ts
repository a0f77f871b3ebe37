/** At most `size` holders at a time; the others wait their turn, first come first served. */
export class Slots {
  /** Below zero while places taken over the size (`takeNow`) are owed. */
  #free: number;
  readonly #waiting: Array<() => void> = [];

  constructor(size: number) {
    this.#free = size;
  }

  async take(): Promise<void> {
    if (this.#free > 0) {
      this.#free -= 1;
      return;
    }
    await new Promise<void>((resolve) => this.#waiting.push(resolve));
  }

  /** Takes a place at once, over the size if need be: the places given back next repay it first. */
  takeNow(): void {
    this.#free -= 1;
  }

  /** Hands the slot to the next in line, or frees it. */
  give(): void {
    const next = this.#free < 0 ? undefined : this.#waiting.shift();
    if (next !== undefined) next();
    else this.#free += 1;
  }
}
