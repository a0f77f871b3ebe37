import { setTimeout as sleep } from "node:timers/promises";
import { annotations } from "../../src/api/meta.ts";
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
  /** Replace and fail updates that found no running server to act on. */
  noServer: number;
  /** Actions given up after the apiserver refused them for minutes. */
  failed: number;
}

/**
 * Applies the timeline to the cluster as a user would, one action at a time, each at its moment
 * (late when the apiserver is down: every action is retried until it is back).
 */
export class LoadGenerator {
  readonly counts: LoadCounts = {
    created: 0,
    updated: 0,
    deleted: 0,
    updates: new Map(),
    noServer: 0,
    failed: 0,
  };
  readonly #cluster: Cluster;
  readonly #ledger: Ledger;
  readonly #world: { failServer(address: string): Promise<void> };
  readonly #logger: Logger;
  #replaceRequests = 0;

  /** `world`: the service's side of the load (a server failing). */
  constructor(
    cluster: Cluster,
    ledger: Ledger,
    world: { failServer(address: string): Promise<void> },
    logger: Logger,
  ) {
    this.#cluster = cluster;
    this.#ledger = ledger;
    this.#world = world;
    this.#logger = logger;
  }

  async run(actions: readonly LoadAction[], startedAt: number): Promise<void> {
    for (const action of actions) {
      const wait = startedAt + action.at * 1000 - Date.now();
      if (wait > 0) await sleep(wait);
      const tracked = this.#ledger.get(action.resource.key);
      if (tracked === undefined) continue;
      await untilRestored(tracked);
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
        if (kind === "ServerOrder")
          tracked.approvals.push({ at: 0, approved: tracked.spec.approved === true });
        this.counts.created++;
        return;
      case "update": {
        if (!tracked.created || tracked.deleteRequestedAt !== undefined) return;
        if (await this.#update(action.update, tracked)) {
          this.counts.updated++;
          const what = action.update.what;
          this.counts.updates.set(what, (this.counts.updates.get(what) ?? 0) + 1);
        }
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

  /** Whether the update was made (a replace or fail finds no running server while none is up yet). */
  async #update(update: PlannedUpdate, tracked: Tracked): Promise<boolean> {
    const { kind, namespace, name } = tracked.plan;
    if (update.type === "patch") {
      // A grant counts from when it is sent, a withdrawal from when it took effect.
      if (update.patch.approved === true) tracked.approvals.push({ at: Date.now(), approved: true });
      if (update.patch.stopped === true) tracked.stoppedAsked = true;
      Object.assign(tracked.spec, update.patch);
      await this.#cluster.patchSpec(kind, namespace, name, update.patch);
      if (update.patch.approved === false) tracked.approvals.push({ at: Date.now(), approved: false });
      return true;
    }
    const running = (await this.#cluster.get(kind, namespace, name))?.status?.servers?.find(
      (s) => s.state === "running",
    );
    if (running === undefined) {
      this.counts.noServer++;
      return false;
    }
    if (update.type === "failServer") {
      await this.#world.failServer(running.address);
      return true;
    }
    const value = `${running.address}@chaos-${++this.#replaceRequests}`;
    await this.#cluster.annotate(kind, namespace, name, { [annotations.replaceServer]: value });
    tracked.echo = { value, at: Date.now() };
    return true;
  }
}

/** A restore under way (the resource deleted, to be re-created) is waited for, up to three minutes. */
async function untilRestored(tracked: Tracked): Promise<void> {
  const deadline = Date.now() + 180_000;
  while (tracked.restoringSince !== undefined && Date.now() < deadline) await sleep(200);
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
