import type { Slots } from "./slots.ts";

/**
 * One reconcile's hold on a worker. While any of its calls waits on an answer the worker is given
 * back; once the last answer came the reconcile goes on at once, over the worker count if need be
 * (new keys then wait until it is repaid). It never waits for a worker: another reconcile may be
 * waiting on its answer (one `GET /me` shared by many). A call still running after the reconcile
 * ended touches the workers no more.
 */
export class WorkerHold {
  readonly #workers: Slots;
  readonly #onChange: (holding: boolean) => void;
  #holding = true;
  #waiting = 0;
  #ended = false;

  /** The worker is already taken from `workers`. */
  constructor(workers: Slots, onChange: (holding: boolean) => void) {
    this.#workers = workers;
    this.#onChange = onChange;
  }

  async whileWaiting<T>(answer: Promise<T>): Promise<T> {
    if (this.#ended) return answer;
    this.#waiting += 1;
    if (this.#waiting === 1) this.#release();
    try {
      return await answer;
    } finally {
      this.#waiting -= 1;
      if (this.#waiting === 0 && !this.#ended) {
        this.#workers.takeNow();
        this.#holding = true;
        this.#onChange(true);
      }
    }
  }

  /** The reconcile is over: its worker goes back. */
  end(): void {
    this.#ended = true;
    this.#release();
  }

  #release(): void {
    if (!this.#holding) return;
    this.#holding = false;
    this.#workers.give();
    this.#onChange(false);
  }
}
