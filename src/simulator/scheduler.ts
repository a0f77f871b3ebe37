interface Task {
  at: number;
  seq: number;
  run: (at: number) => void;
}

/**
 * Timed transitions on the simulated clock. Nothing runs on its own: due tasks run, in time
 * order and each at its own instant, when a request arrives or the clock is moved.
 */
export class Scheduler {
  readonly #heap: Task[] = [];
  #seq = 0;

  schedule(at: number, run: (at: number) => void): void {
    this.#heap.push({ at, seq: this.#seq++, run });
    this.#up(this.#heap.length - 1);
  }

  runDue(now: number): void {
    for (let top = this.#heap[0]; top !== undefined && top.at <= now; top = this.#heap[0]) {
      this.#pop();
      top.run(top.at);
    }
  }

  #pop(): void {
    const last = this.#heap.pop();
    if (last === undefined || this.#heap.length === 0) return;
    this.#heap[0] = last;
    this.#down(0);
  }

  #before(a: number, b: number): boolean {
    const x = this.#heap[a];
    const y = this.#heap[b];
    if (x === undefined || y === undefined) return false;
    return x.at < y.at || (x.at === y.at && x.seq < y.seq);
  }

  #swap(a: number, b: number): void {
    const x = this.#heap[a];
    const y = this.#heap[b];
    if (x === undefined || y === undefined) return;
    this.#heap[a] = y;
    this.#heap[b] = x;
  }

  #up(i: number): void {
    for (let parent = (i - 1) >> 1; i > 0 && this.#before(i, parent); i = parent, parent = (i - 1) >> 1) {
      this.#swap(i, parent);
    }
  }

  #down(i: number): void {
    for (;;) {
      const left = 2 * i + 1;
      let smallest = i;
      if (left < this.#heap.length && this.#before(left, smallest)) smallest = left;
      if (left + 1 < this.#heap.length && this.#before(left + 1, smallest)) smallest = left + 1;
      if (smallest === i) return;
      this.#swap(i, smallest);
      i = smallest;
    }
  }
}
