import { setTimeout as sleep } from "node:timers/promises";
import type { Logger } from "../../src/telemetry/logger.ts";
import { type Cluster, type Kind, kinds, type Resource } from "./cluster.ts";
import { createOperations } from "./faults.ts";
import type { Checker } from "./invariants.ts";
import type { ServiceReader, ServiceSnapshot } from "./service.ts";
import type { RequestRecord, SimulatorProcess } from "./simulator.ts";

/** Every resource of every kind, read one kind after the other. */
export async function readCluster(cluster: Cluster): Promise<Map<Kind, Resource[]>> {
  const lists = new Map<Kind, Resource[]>();
  for (const kind of kinds) lists.set(kind, await cluster.list(kind));
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
  logger: Logger;
}

/** One check: the cluster, then the service, then the create log. False when a reading failed. */
export async function checkOnce(readers: Readers): Promise<ServiceSnapshot | undefined> {
  const readAt = Date.now();
  try {
    readers.checker.observeCluster(await readCluster(readers.cluster), readAt);
    const serviceReadAt = Date.now();
    const snapshot = await readers.service.snapshot();
    readers.checker.observeService(snapshot, serviceReadAt);
    await readers.creates.collect(readers.simulator);
    return snapshot;
  } catch (error) {
    readers.logger.warn({ error: String(error) }, "a check could not read everything; skipped");
    return undefined;
  }
}

/** Checks every `intervalMs` until `stop` says so; returns how many checks were skipped. */
export async function checkUntil(readers: Readers, intervalMs: number, stop: () => boolean): Promise<number> {
  let skipped = 0;
  while (!stop()) {
    if ((await checkOnce(readers)) === undefined) skipped++;
    await sleep(intervalMs);
  }
  return skipped;
}
