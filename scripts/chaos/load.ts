import { setTimeout as sleep } from "node:timers/promises";
import { isKubeError } from "../../src/runtime/index.ts";
import type { Logger } from "../../src/telemetry/logger.ts";
import type { Cluster } from "./cluster.ts";
import type { Ledger, Tracked } from "./ledger.ts";
import type { LoadPlan, PlannedResource, PlannedUpdate } from "./plan.ts";

export type LoadAction =
  | { at: number; type: "create"; resource: PlannedResource }
  | { at: number; type: "update"; resource: PlannedResource; update: PlannedUpdate }
  | { at: number; type: "delete"; resource: PlannedResource };

/** The plan as one timeline: creates, updates and deletes in time order (a create before its updates). */
export function timeline(plan: LoadPlan): LoadAction[] {
  const actions: LoadAction[] = [];
  for (const resource of plan.resources) {
    actions.push({ at: resource.createAt, type: "create", resource });
    for (const update of resource.updates) actions.push({ at: update.at, type: "update", resource, update });
    if (resource.deleteAt !== undefined) actions.push({ at: resource.deleteAt, type: "delete", resource });
  }
  const order = { create: 0, update: 1, delete: 2 };
  return actions.sort((a, b) => a.at - b.at || order[a.type] - order[b.type]);
}

export interface LoadCounts {
  created: number;
  updated: number;
  deleted: number;
  /** Updates by what they change. */
  updates: Map<string, number>;
  /** Actions given up after the apiserver refused them for minutes. */
  failed: number;
}

/**
 * Applies the timeline to the cluster as a user would, one action at a time, each at its moment
 * (late when the apiserver is down: every action is retried until it is back).
 */
export class LoadGenerator {
  readonly counts: LoadCounts = { created: 0, updated: 0, deleted: 0, updates: new Map(), failed: 0 };
  readonly #cluster: Cluster;
  readonly #ledger: Ledger;
  readonly #logger: Logger;

  constructor(cluster: Cluster, ledger: Ledger, logger: Logger) {
    this.#cluster = cluster;
    this.#ledger = ledger;
    this.#logger = logger;
  }

  async run(actions: readonly LoadAction[], startedAt: number): Promise<void> {
    for (const action of actions) {
      const wait = startedAt + action.at * 1000 - Date.now();
      if (wait > 0) await sleep(wait);
      const tracked = this.#ledger.get(action.resource.key);
      if (tracked === undefined) continue;
      try {
        await retried(() => this.#apply(action, tracked));
      } catch (error) {
        this.counts.failed++;
        this.#logger.error(
          { err: error, key: action.resource.key, action: action.type },
          "load action failed",
        );
      }
    }
  }

  async #apply(action: LoadAction, tracked: Tracked): Promise<void> {
    const { kind, namespace, name } = action.resource;
    switch (action.type) {
      case "create":
        try {
          await this.#cluster.create(kind, namespace, name, tracked.spec);
        } catch (error) {
          // A create whose answer was lost (the apiserver restarting) may have happened.
          if (!isKubeError(error, "conflict")) throw error;
        }
        tracked.created = true;
        tracked.createdAt = Date.now();
        this.counts.created++;
        return;
      case "update": {
        if (!tracked.created || tracked.deleteRequestedAt !== undefined) return;
        if (action.update.patch.approved === true) tracked.approved = true;
        Object.assign(tracked.spec, action.update.patch);
        await this.#cluster.patchSpec(kind, namespace, name, action.update.patch);
        this.counts.updated++;
        const what = action.update.what;
        this.counts.updates.set(what, (this.counts.updates.get(what) ?? 0) + 1);
        return;
      }
      case "delete":
        if (!tracked.created) return;
        tracked.deleteRequestedAt ??= Date.now();
        await this.#cluster.delete(kind, namespace, name);
        this.counts.deleted++;
        return;
    }
  }
}

/** Retries a cluster call for up to three minutes (a control-plane restart takes some seconds). */
export async function retried<T>(call: () => Promise<T>, forMs = 180_000): Promise<T> {
  const deadline = Date.now() + forMs;
  for (let delay = 200; ; delay = Math.min(delay * 2, 5000)) {
    try {
      return await call();
    } catch (error) {
      if (Date.now() + delay > deadline || !transient(error)) throw error;
      await sleep(delay);
    }
  }
}

function transient(error: unknown): boolean {
  return (
    isKubeError(error, "transport") ||
    isKubeError(error, "server_error") ||
    isKubeError(error, "unauthorized") ||
    isKubeError(error, "too_many_requests") ||
    isKubeError(error, "bad_response")
  );
}
