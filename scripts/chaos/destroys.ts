import type { Tracked, Violations } from "./ledger.ts";
import type { RequestRecord, SimulatorProcess } from "./simulator.ts";

// no-destroy-while-managed: the service's request log says when an object was deleted or stopped;
// the ledger says who managed it then, and since when that resource was being deleted.

/** The calls that end or stop an object named in their path. */
export const destroyOperations = ["deleteProject", "deleteApp", "deleteGrid", "stopApp"] as const;

/** One call that acted on an object, at a wall-clock ms. */
export interface Destroy {
  operation: string;
  id: string;
  at: number;
  requestId: string;
}

const idInPath: Record<(typeof destroyOperations)[number], RegExp> = {
  deleteProject: /^\/v1\/projects\/([^/?]+)$/,
  deleteApp: /^\/v1\/projects\/[^/]+\/apps\/([^/?]+)$/,
  stopApp: /^\/v1\/projects\/[^/]+\/apps\/([^/?]+)\/stop$/,
  deleteGrid: /^\/v1\/grids\/([^/?]+)$/,
};

/** The simulator's clock against the wall clock, sampled as the run goes. */
export class SimClock {
  readonly #speed: number;
  readonly #samples: { wall: number; sim: number }[] = [];

  constructor(speed: number) {
    this.#speed = speed;
  }

  sample(wall: number, sim: number): void {
    this.#samples.push({ wall, sim });
  }

  /** The wall-clock ms of a simulated moment, from the sample nearest to it. */
  toWall(sim: number): number {
    let nearest = this.#samples[0];
    if (nearest === undefined) throw new Error("no sample of the simulator's clock yet");
    for (const s of this.#samples) if (Math.abs(s.sim - sim) < Math.abs(nearest.sim - sim)) nearest = s;
    return nearest.wall + (sim - nearest.sim) / this.#speed;
  }
}

/** The destroying calls the service acted on (a replay did not act again), kept before its log rolls over. */
export class DestroyLog {
  readonly #seen = new Map<string, Destroy>();

  /** Samples the simulator's clock, then takes the destroying calls its log holds. */
  async collect(from: {
    simulator: Pick<SimulatorProcess, "now" | "requests">;
    clock: SimClock;
  }): Promise<void> {
    const before = Date.now();
    const sim = await from.simulator.now();
    from.clock.sample((before + Date.now()) / 2, sim);
    for (const operation of destroyOperations) this.add(await from.simulator.requests(operation), from.clock);
  }

  add(records: readonly RequestRecord[], clock: SimClock): void {
    for (const record of records) {
      const destroy = destroyOf(record, clock);
      if (destroy !== undefined) this.#seen.set(destroy.requestId, destroy);
    }
  }

  all(): Destroy[] {
    return [...this.#seen.values()];
  }

  byOperation(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const d of this.#seen.values()) counts.set(d.operation, (counts.get(d.operation) ?? 0) + 1);
    return counts;
  }
}

function destroyOf(record: RequestRecord, clock: SimClock): Destroy | undefined {
  const operation = destroyOperations.find((o) => o === record.operation);
  if (operation === undefined || record.replayed) return undefined;
  if (!record.dropped && (record.status < 200 || record.status >= 300)) return undefined;
  const id = idInPath[operation].exec(record.path.split("?")[0] ?? "")?.[1];
  if (id === undefined) return undefined;
  return { operation, id, at: clock.toWall(Date.parse(record.at)), requestId: record.requestId };
}

/**
 * No object is deleted or stopped while a resource that manages it (its status showed the ID) is
 * there and not being deleted: not through a copy or an adopter, not by a restore's deletion with
 * Orphan. An App that asked for stopped may stop its own app.
 */
export function checkDestroys(
  destroys: readonly Destroy[],
  resources: readonly Tracked[],
  violations: Violations,
  /** Objects a person made with a key of their own: no resource may end them. */
  foreign: ReadonlyMap<string, string> = new Map(),
): void {
  for (const destroy of destroys) {
    const person = foreign.get(destroy.id);
    if (person !== undefined)
      violations.add(
        "no-destroy-while-managed",
        `${destroy.operation} ${destroy.id}`,
        `${destroy.operation} acted on ${person} ${secondsBefore(destroy.at)}`,
      );
    for (const manager of resources) {
      if (!managing(manager, destroy)) continue;
      violations.add(
        "no-destroy-while-managed",
        `${destroy.operation} ${destroy.id}`,
        `${destroy.operation} acted on ${destroy.id} ${secondsBefore(destroy.at)} while ${manager.plan.key} managed it and was not being deleted`,
      );
    }
  }
}

function managing(manager: Tracked, destroy: Destroy): boolean {
  if (!manager.ids.includes(destroy.id) || manager.idSeenAt === undefined) return false;
  if (destroy.operation === "stopApp" && manager.stoppedAsked) return false;
  const before = (at: number | undefined) => at !== undefined && at <= destroy.at;
  return before(manager.idSeenAt) && !before(manager.deleteRequestedAt) && !before(manager.goneAt);
}

function secondsBefore(at: number): string {
  return `${((Date.now() - at) / 1000).toFixed(1)} s ago`;
}
