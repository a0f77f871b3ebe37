import { setTimeout as sleep } from "node:timers/promises";
import type { Logger } from "../../src/telemetry/logger.ts";
import type { Cluster } from "./cluster.ts";
import { retried } from "./load.ts";
import { applyAdoption, applyCopy, type OwnershipWorld, restore } from "./ownership-faults.ts";
import { type OwnershipEvent, spendingOperations } from "./ownership-plan.ts";
import type { Random } from "./random.ts";
import type { FaultRule, SimulatorProcess } from "./simulator.ts";

/** The creates the service may act on and then drop, forgetting the idempotency key. */
export const createOperations = ["createProject", "createApp", "createGrid", "provisionServers"];

/**
 * Faults present the whole chaos: act-then-drop on each kind's first create and 5 % of the others,
 * then 20 % 5xx on everything. The first create is certain, so that every run meets each kind's
 * dropped create (a short run makes a handful of Grids: 5 % alone would miss them in most runs).
 */
export function steadyFaults(): FaultRule[] {
  // Three independent rolls of p hit 1 − (1 − p)³ = 20 % of the requests the drops left alone.
  const p = 1 - 0.8 ** (1 / 3);
  return [
    ...createOperations.flatMap((operation) => [
      { operation, dropResponse: true, forgetIdempotency: true, times: 1 },
      { operation, dropResponse: true, forgetIdempotency: true, probability: 0.05 },
    ]),
    ...[500, 502, 503].map((status) => ({ operation: "*", status, probability: Number(p.toFixed(4)) })),
  ];
}

/** A steady fault's name in the run's tally: what it does and to which operation. */
export function steadyFaultName(rule: FaultRule): string {
  return rule.dropResponse === true
    ? `act-then-drop on ${rule.operation}`
    : `${rule.status} on every operation`;
}

/** The requests each steady fault hit, over the rules it is made of (`added`: each rule's name and id). */
export function tallySteady(
  added: readonly { name: string; id: string }[],
  hits: ReadonlyMap<string, number>,
): { name: string; hits: number }[] {
  const byName = new Map<string, number>();
  for (const { name, id } of added) byName.set(name, (byName.get(name) ?? 0) + (hits.get(id) ?? 0));
  return [...byName].map(([name, count]) => ({ name, hits: count }));
}

export type FaultEvent =
  | { at: number; type: "storm"; seconds: number; retryAfterSec: number; simulatedSec: number }
  /** `onlyCreates`: every create is slow (in flight while the operator is killed); else half of all requests. */
  | { at: number; type: "latency"; seconds: number; latencyMs: number; onlyCreates: boolean }
  /** `force`: an admin also clears the Secret's finalizers, so it goes at once even while in use. */
  | { at: number; type: "secretDeleted"; namespace: string; name: string; seconds: number; force: boolean }
  | { at: number; type: "keyRotated"; namespace: string; name: string; revokeAfterSec: number }
  /** A key of another user goes into the Secret for `seconds` (mid-order), then one of the right user. */
  | { at: number; type: "keyOfOtherUser"; namespace: string; name: string; seconds: number }
  | { at: number; type: "controlPlaneRestart" }
  | OwnershipEvent;

export interface FaultSetting {
  chaosSec: number;
  clockSpeed: number;
  /** The Secret deleted and restored, and the one whose key is rotated. */
  deleted: { namespace: string; name: string };
  rotated: { namespace: string; name: string };
}

/** Timed faults over the chaos, from the seed: storms, latency spikes, credential changes, one restart. */
export function planFaults(random: Random, setting: FaultSetting): FaultEvent[] {
  const t = setting.chaosSec;
  const when = (from: number, to: number) => random.between(from * t, to * t);
  const events: FaultEvent[] = [];
  for (let i = 0; i < Math.max(2, Math.round(t / 90)); i++) {
    const simulatedSec = random.int(5, 60);
    events.push({
      at: when(0.05, 0.85),
      type: "storm",
      seconds: random.between(3, 8),
      simulatedSec,
      retryAfterSec: Math.max(1, Math.ceil(simulatedSec / setting.clockSpeed)),
    });
  }
  for (let i = 0; i < Math.max(2, Math.round(t / 75)); i++) {
    events.push({
      at: when(0.05, 0.85),
      type: "latency",
      seconds: random.between(4, 10),
      latencyMs: random.int(1000, 10_000),
      onlyCreates: i % 2 === 1,
    });
  }
  const outage = Math.min(40, Math.max(8, t * 0.05));
  events.push({
    at: when(0.15, 0.2),
    type: "secretDeleted",
    ...setting.deleted,
    seconds: outage,
    force: false,
  });
  events.push({
    at: when(0.3, 0.35),
    type: "secretDeleted",
    ...setting.deleted,
    seconds: outage,
    force: true,
  });
  events.push({ at: when(0.4, 0.5), type: "controlPlaneRestart" });
  events.push({
    at: when(0.55, 0.65),
    type: "keyRotated",
    ...setting.rotated,
    revokeAfterSec: Math.min(10, t * 0.03),
  });
  // After the creates (the first half), while day-2 changes go on: intents meet a key of another user.
  events.push({
    at: when(0.7, 0.78),
    type: "keyOfOtherUser",
    ...setting.rotated,
    seconds: Math.min(30, Math.max(8, t * 0.06)),
  });
  return events.sort((a, b) => a.at - b.at);
}

/** What the fault driver needs to act on the world. */
export interface FaultTargets {
  simulator: Pick<SimulatorProcess, "addFault" | "removeFault" | "faultHits" | "addKey" | "revokeKey">;
  cluster: Pick<Cluster, "deleteSecret" | "clearSecretFinalizers" | "secretState" | "putSecret">;
  userId: string;
  otherUserId: string;
  /** Each credentials Secret's contents and key ID by namespace/name; updated when a key is rotated. */
  secrets: Map<string, StoredSecret>;
  /** Every token issued, for the log search. */
  tokens: string[];
  restartControlPlane(): Promise<void>;
  /** The copies, adoptions and restores act on the cluster and record what they made in the ledger. */
  ownership: OwnershipWorld;
  logger: Logger;
}

export interface StoredSecret {
  data: Record<string, string>;
  keyId: string;
}

export type FaultType = FaultEvent["type"];

export const faultTypes: readonly FaultType[] = [
  "storm",
  "latency",
  "secretDeleted",
  "keyRotated",
  "keyOfOtherUser",
  "controlPlaneRestart",
  "copy",
  "adopt",
  "restore",
  "slowSpend",
];

/** A number per type of timed fault. */
export type FaultTally = Record<FaultType, number>;

/** How many of each type the events hold. */
export function tallyFaults(events: readonly FaultEvent[]): FaultTally {
  const tally = Object.fromEntries(faultTypes.map((type) => [type, 0])) as FaultTally;
  for (const event of events) tally[event.type]++;
  return tally;
}

/** A timed fault that could not be carried out (or undone), and why. */
export interface FaultFailure {
  type: FaultType;
  /** Seconds into the chaos it was planned for. */
  at: number;
  error: string;
}

/** Thrown when a fault finds nothing to act on. */
export class FaultNotApplied extends Error {
  readonly code = "fault_not_applied";
}

/** How the credential faults went. */
export interface SecretOutcomes {
  /** Deleted Secrets that berth's credentials finalizer kept (Terminating) instead of letting go. */
  held: number;
  /** Deleted Secrets whose finalizers were cleared too (an admin's forced delete). */
  forced: number;
  restored: number;
}

/** Carries the timed faults out, each at its moment; every one is undone before `run` returns. */
export class FaultDriver {
  /** Faults carried out (and undone) without an error, by type. */
  readonly fired: FaultTally = tallyFaults([]);
  readonly failures: FaultFailure[] = [];
  readonly secrets: SecretOutcomes = { held: 0, forced: 0, restored: 0 };
  /** Spending calls the slow-spending faults held past the client's write timeout. */
  delayedSpending = 0;
  readonly #targets: FaultTargets;
  readonly #pending: Promise<void>[] = [];

  constructor(targets: FaultTargets) {
    this.#targets = targets;
  }

  async run(events: readonly FaultEvent[], startedAt: number): Promise<void> {
    for (const event of events) {
      const wait = startedAt + event.at * 1000 - Date.now();
      if (wait > 0) await sleep(wait);
      this.#pending.push(
        this.#apply(event).then(
          () => {
            this.fired[event.type]++;
          },
          (error: unknown) => {
            this.failures.push({ type: event.type, at: event.at, error: String(error) });
            this.#targets.logger.error({ error: String(error), event: event.type }, "fault failed");
          },
        ),
      );
    }
    await Promise.all(this.#pending);
  }

  async #apply(event: FaultEvent): Promise<void> {
    const { logger } = this.#targets;
    logger.info({ event }, "fault");
    switch (event.type) {
      case "storm": {
        await this.#during(event.seconds, {
          operation: "*",
          status: 429,
          retryAfterSec: event.retryAfterSec,
        });
        return;
      }
      case "latency":
        await this.#during(
          event.seconds,
          ...(event.onlyCreates
            ? createOperations.map((operation) => ({ operation, latencyMs: event.latencyMs }))
            : [{ operation: "*", latencyMs: event.latencyMs, probability: 0.5 }]),
        );
        return;
      case "secretDeleted":
        await this.#deleteAndRestore(event.namespace, event.name, event.seconds, event.force);
        return;
      case "keyRotated":
        await this.#rotate(event.namespace, event.name, event.revokeAfterSec);
        return;
      case "keyOfOtherUser":
        await this.#otherUserFor(event.namespace, event.name, event.seconds);
        return;
      case "controlPlaneRestart":
        await this.#targets.restartControlPlane();
        logger.info("control plane restarted");
        return;
      case "copy":
        await applyCopy(this.#targets.ownership, event);
        return;
      case "adopt":
        await applyAdoption(this.#targets.ownership, event);
        return;
      case "restore":
        await restore(this.#targets.ownership, event);
        return;
      case "slowSpend":
        await this.#slowSpending(event.seconds, event.latencyMs);
        return;
    }
  }

  /**
   * Deletes the Secret and restores it `seconds` later. While berth resources use it, berth's
   * finalizer holds it (Terminating, still readable): then the restore waits up to as long again
   * for it to go, and otherwise leaves it held, as `kubectl apply` would.
   */
  async #deleteAndRestore(namespace: string, name: string, seconds: number, force: boolean): Promise<void> {
    const { cluster, logger } = this.#targets;
    const stored = this.#storedSecret(namespace, name);
    await retried(() => cluster.deleteSecret(namespace, name));
    if (force) {
      await retried(() => cluster.clearSecretFinalizers(namespace, name));
      this.secrets.forced++;
    }
    await sleep(seconds * 1000);
    const deadline = Date.now() + seconds * 1000;
    let state = await retried(() => cluster.secretState(namespace, name));
    while (state === "terminating" && Date.now() < deadline) {
      await sleep(1000);
      state = await retried(() => cluster.secretState(namespace, name));
    }
    if (state === "terminating") {
      this.secrets.held++;
      logger.info({ secret: `${namespace}/${name}` }, "Secret held by berth's finalizer; left Terminating");
      return;
    }
    await retried(() => cluster.putSecret(namespace, name, stored.data));
    this.secrets.restored++;
    logger.info({ secret: `${namespace}/${name}`, was: state }, "Secret restored");
  }

  /** A new key of the same user goes into the Secret; the old one is revoked a little later. */
  async #rotate(namespace: string, name: string, revokeAfterSec: number): Promise<void> {
    const { simulator, cluster, secrets, tokens } = this.#targets;
    const key = `${namespace}/${name}`;
    const old = this.#storedSecret(namespace, name);
    const fresh = await simulator.addKey(this.#targets.userId);
    tokens.push(fresh.token);
    const data = { ...old.data, apiKey: fresh.token };
    secrets.set(key, { data, keyId: fresh.id });
    await retried(() => cluster.putSecret(namespace, name, data));
    await sleep(revokeAfterSec * 1000);
    await simulator.revokeKey(old.keyId);
  }

  /** The Secret holds another user's key for `seconds`, then a new key of the right user. */
  async #otherUserFor(namespace: string, name: string, seconds: number): Promise<void> {
    const { simulator, cluster, secrets, tokens } = this.#targets;
    const key = `${namespace}/${name}`;
    const old = this.#storedSecret(namespace, name);
    const wrong = await simulator.addKey(this.#targets.otherUserId);
    tokens.push(wrong.token);
    await retried(() => cluster.putSecret(namespace, name, { ...old.data, apiKey: wrong.token }));
    await sleep(seconds * 1000);
    const right = await simulator.addKey(this.#targets.userId);
    tokens.push(right.token);
    const data = { ...old.data, apiKey: right.token };
    secrets.set(key, { data, keyId: right.id });
    await retried(() => cluster.putSecret(namespace, name, data));
    await simulator.revokeKey(wrong.id);
    await simulator.revokeKey(old.keyId);
  }

  #storedSecret(namespace: string, name: string): StoredSecret {
    const stored = this.#targets.secrets.get(`${namespace}/${name}`);
    if (stored === undefined)
      throw new FaultNotApplied(`no credentials Secret ${namespace}/${name} to act on`);
    return stored;
  }

  /** Spending calls answer late for `seconds`; it did not fire unless at least one came meanwhile. */
  async #slowSpending(seconds: number, latencyMs: number): Promise<void> {
    const { simulator } = this.#targets;
    const ids: string[] = [];
    for (const operation of spendingOperations) ids.push(await simulator.addFault({ operation, latencyMs }));
    await sleep(seconds * 1000);
    const hits = await simulator.faultHits();
    for (const id of ids) await simulator.removeFault(id);
    const delayed = ids.reduce((sum, id) => sum + (hits.get(id) ?? 0), 0);
    if (delayed === 0) throw new FaultNotApplied(`no spending call came in ${seconds.toFixed(1)} s`);
    this.delayedSpending += delayed;
  }

  /** The rules hold for `seconds`; it did not fire unless a request hit one of them meanwhile. */
  async #during(seconds: number, ...rules: FaultRule[]): Promise<void> {
    const { simulator } = this.#targets;
    const ids: string[] = [];
    for (const rule of rules) ids.push(await simulator.addFault(rule));
    await sleep(seconds * 1000);
    const hits = await simulator.faultHits();
    for (const id of ids) await simulator.removeFault(id);
    if (ids.every((id) => (hits.get(id) ?? 0) === 0))
      throw new FaultNotApplied(`no request hit it in ${seconds.toFixed(1)} s`);
  }
}
