import { setTimeout as sleep } from "node:timers/promises";
import type { Logger } from "../../src/telemetry/logger.ts";
import { type Cluster, type Kind, kinds, type Resource } from "./cluster.ts";
import type { DestroyLog, SimClock } from "./destroys.ts";
import { createOperations } from "./faults.ts";
import type { Checker } from "./invariants.ts";
import { retried } from "./load.ts";
import type { ServiceReader } from "./service.ts";
import type { RequestRecord, SimulatorProcess } from "./simulator.ts";
import { appSpendingOperations, orderingOperations, type SpendHistory } from "./spend.ts";

/** Every resource of every kind, read one kind after the other (through a control-plane restart). */
export async function readCluster(cluster: Cluster): Promise<Map<Kind, Resource[]>> {
  const lists = new Map<Kind, Resource[]>();
  for (const kind of kinds) lists.set(kind, await retried(() => cluster.list(kind)));
  return lists;
}

/** The requests of the create operations, collected before the simulator's log (10 000 requests) rolls over. */
export class CreateLog {
  readonly #records = new Map<string, RequestRecord>();

  async collect(simulator: SimulatorProcess): Promise<void> {
    for (const operation of createOperations) {
      for (const record of await simulator.requests(operation)) this.#records.set(record.requestId, record);
    }
  }

  /** Creates the service carried out (a replay is not one), by operation: 201, or 202 for a real order. */
  acted(): Map<string, number> {
    return this.#count((r) => (r.status === 201 || r.status === 202) && !r.replayed);
  }

  /** Responses an injected fault dropped after the service acted, by operation. */
  dropped(): Map<string, number> {
    return this.#count((r) => r.dropped);
  }

  #count(test: (r: RequestRecord) => boolean): Map<string, number> {
    const counts = new Map<string, number>();
    for (const r of this.#records.values()) {
      if (test(r)) counts.set(r.operation ?? "?", (counts.get(r.operation ?? "?") ?? 0) + 1);
    }
    return counts;
  }
}

export interface Readers {
  cluster: Cluster;
  service: ServiceReader;
  simulator: SimulatorProcess;
  checker: Checker;
  creates: CreateLog;
  /** The deleting and stopping calls the service acted on, for no-destroy-while-managed. */
  destroys: DestroyLog;
  clock: SimClock;
  /** The namespace with a SpendLimit, for spend-within-limit. */
  spend?: SpendHistory;
  logger: Logger;
  /** Wall-clock ms the run started, for the time of a failed check. */
  startedAt: number;
}

/** One check: the cluster, then the service, then the create and destroy logs. The reason it failed, if it did. */
export async function checkOnce(readers: Readers): Promise<string | undefined> {
  const readAt = Date.now();
  try {
    const lists = await readCluster(readers.cluster);
    readers.checker.observeCluster(lists, readAt);
    readers.spend?.observeCluster(lists, readAt);
    const serviceReadAt = Date.now();
    const snapshot = await readers.service.snapshot();
    readers.checker.observeService(snapshot, serviceReadAt);
    readers.spend?.observeService(snapshot, serviceReadAt);
    await collectOrderingCalls(readers);
    await readers.creates.collect(readers.simulator);
    await readers.destroys.collect(readers);
    return undefined;
  } catch (error) {
    const reason = `t+${Math.round((Date.now() - readers.startedAt) / 1000)}s: ${String(error)}`;
    readers.logger.error({ error: String(error) }, "a check could not read everything; the run will fail");
    return reason;
  }
}

/** The ordering calls in the simulator's log, for spend-within-limit (before the log rolls over). */
export async function collectOrderingCalls(readers: Pick<Readers, "spend" | "simulator">): Promise<void> {
  const spend = readers.spend;
  if (spend === undefined) return;
  for (const operation of orderingOperations) spend.addCalls(await readers.simulator.requests(operation));
  for (const operation of appSpendingOperations)
    spend.addAppCalls(await readers.simulator.requests(operation));
}

/** Checks every `intervalMs` until `stop` says so; returns why each check that failed did. */
export async function checkUntil(
  readers: Readers,
  intervalMs: number,
  stop: () => boolean,
): Promise<string[]> {
  const skipped: string[] = [];
  while (!stop()) {
    const failure = await checkOnce(readers);
    if (failure !== undefined) skipped.push(failure);
    await sleep(intervalMs);
  }
  return skipped;
}
