/** At most `size` holders at a time; the others wait their turn, first come first served. */
export class Slots {
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

  /** Like `take`, but ahead of everyone waiting: for a holder coming back to finish what it began. */
  async takeFirst(): Promise<void> {
    if (this.#free > 0) {
      this.#free -= 1;
      return;
    }
    await new Promise<void>((resolve) => this.#waiting.unshift(resolve));
  }

  /** Hands the slot to the next in line, or frees it. */
  give(): void {
    const next = this.#waiting.shift();
    if (next !== undefined) next();
    else this.#free += 1;
  }
}
