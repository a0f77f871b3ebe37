export interface RequestRecord {
  at: string;
  requestId: string;
  operation: string | null;
  method: string;
  path: string;
  status: number;
  keyId: string | null;
  replayed: boolean;
  /** The response was dropped by an injected fault. */
  dropped: boolean;
}

/** The last N requests, for tests that count calls (a ring buffer). */
export class RequestLog {
  readonly #capacity: number;
  #items: RequestRecord[] = [];
  #start = 0;

  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  add(record: RequestRecord): void {
    if (this.#items.length < this.#capacity) {
      this.#items.push(record);
      return;
    }
    this.#items[this.#start] = record;
    this.#start = (this.#start + 1) % this.#capacity;
  }

  list(operation?: string): RequestRecord[] {
    const ordered = [...this.#items.slice(this.#start), ...this.#items.slice(0, this.#start)];
    return operation === undefined ? ordered : ordered.filter((r) => r.operation === operation);
  }
}
