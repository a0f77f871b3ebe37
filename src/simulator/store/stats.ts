/** What `GET /_sim/stats` shows: every /v1 request by operation and status, and early polls. */
export interface StatsView {
  requests: { total: number; byOperation: Record<string, Record<string, number>> };
  earlyPolls: { total: number; byOperation: Record<string, number> };
}

/**
 * Counters that, unlike the request log, never roll over. A poll is early when it reads a build
 * or an order before the `pollAfterSec` its last answer gave has passed.
 */
export class Stats {
  #total = 0;
  #byOperation = new Map<string, Map<number, number>>();
  #earlyTotal = 0;
  #earlyByOperation = new Map<string, number>();
  /** Resource id → simulated time before which a read of it is early. */
  readonly #notBefore = new Map<string, number>();

  countRequest(operation: string | null, status: number): void {
    this.#total++;
    const name = operation ?? "(unrouted)";
    const byStatus = this.#byOperation.get(name) ?? new Map<number, number>();
    byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
    this.#byOperation.set(name, byStatus);
  }

  /** A read of `id` by `operation` at `now`; counted when it comes before the last hint. */
  poll(operation: string, id: string, now: number): void {
    const notBefore = this.#notBefore.get(id);
    if (notBefore === undefined || now >= notBefore) return;
    this.#earlyTotal++;
    this.#earlyByOperation.set(operation, (this.#earlyByOperation.get(operation) ?? 0) + 1);
  }

  /** An answer told the client to wait until `notBefore` (simulated ms); `undefined` clears it. */
  hint(id: string, notBefore: number | undefined): void {
    if (notBefore === undefined) this.#notBefore.delete(id);
    else this.#notBefore.set(id, notBefore);
  }

  view(): StatsView {
    const byOperation: StatsView["requests"]["byOperation"] = {};
    for (const [operation, byStatus] of [...this.#byOperation].sort(([a], [b]) => a.localeCompare(b))) {
      byOperation[operation] = Object.fromEntries([...byStatus].map(([status, n]) => [String(status), n]));
    }
    return {
      requests: { total: this.#total, byOperation },
      earlyPolls: { total: this.#earlyTotal, byOperation: Object.fromEntries(this.#earlyByOperation) },
    };
  }
}
