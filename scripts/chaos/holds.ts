import type { Violations } from "./ledger.ts";
import type { RequestRecord } from "./simulator.ts";

// changes-held-while-held: while a Namespace is paused, defaults to Observe only, or carries a
// berth annotation berth can't read, berth makes no call that changes something for the
// namespace's resources. Told from the simulator's request log by the keys of the namespace's
// credentials, over the window from a few seconds after the annotation was set (a call already
// on its way may land) until it was removed.

/** A namespace's hold, on the simulator's clock. */
export interface HoldWindow {
  namespace: string;
  /** What held it: `berth.dev/paused=true`. */
  what: string;
  fromSim: number;
  toSim: number;
  /** The IDs of the keys the namespace's resources call with. */
  keyIds: ReadonlySet<string>;
}

/** Reads (get*, list*) change nothing; an estimate is a provisionServers answered 200 (a dry run). */
export function changes(record: RequestRecord): boolean {
  const operation = record.operation;
  if (operation === null || /^(get|list)/.test(operation)) return false;
  // A dry run and a real order share the operation: only an order the service took (202) is one.
  if (operation === "provisionServers") return record.status === 202;
  return true;
}

/** Each changing call of the window's keys within it, as a violation; how many there were. */
export function checkHeldCalls(
  records: readonly RequestRecord[],
  window: HoldWindow,
  violations: Violations,
): number {
  const made = records.filter((r) => {
    const at = Date.parse(r.at);
    return (
      r.keyId !== null &&
      window.keyIds.has(r.keyId) &&
      at >= window.fromSim &&
      at <= window.toSim &&
      changes(r)
    );
  });
  if (made.length === 0) return 0;
  const calls = [...new Set(made.map((r) => `${r.operation} ${r.path.split("?")[0]}`))];
  violations.add(
    "changes-held-while-held",
    `${window.namespace} ${window.what}`,
    `${made.length} changing calls while ${window.what} held the namespace: ${calls.slice(0, 6).join(", ")}`,
  );
  return made.length;
}
