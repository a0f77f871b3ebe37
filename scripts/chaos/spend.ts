import { z } from "zod";
import { instanceTypes } from "../../src/simulator/catalog.ts";
import { parseMoney } from "../../src/simulator/store/money.ts";
import type { Kind, Resource } from "./cluster.ts";
import type { Ledger, Violations } from "./ledger.ts";
import type { LoadPlan } from "./plan.ts";
import type { ServiceSnapshot } from "./service.ts";
import type { RequestRecord } from "./simulator.ts";

// spend-within-limit: berth's own spending calls never take the namespace with a SpendLimit past
// it. Told from the service's side, as a lower bound of what berth must have counted when it made
// each call: the request log says when berth placed an order or a replacement (a non-replayed 202;
// a dry run answers 200) but not for whom, so each call is matched to the order the service lists
// with that creation time, and the order to the namespace by the ServerOrder whose status lists it.
// At each such call in the limited namespace the check adds the new order (its catalog price ×
// count) to the other orders berth placed there that its ledger must still have counted: those
// whose ServerOrder was there, not deleting and the same object (UID) in the cluster readings on
// both sides of the call, each at the least the service charged for it in the readings on both
// sides (a pending order at its price × count, a server at its current charge: a hibernated one
// pays for its disk, one leaving or failed nothing). What berth did not place, a ServerOrder let
// go (an Orphan deletion) or restored without status, and Apps (their reserve ends with a Ready
// the readings may miss) are left out: the check can miss an overshoot, never invent one.

/** The operator's SpendLedger keeps a commitment this long (wall ms) before it stops counting it. */
const commitmentTtlMs = 30 * 60_000;
/** How far an order's creation time may be from its call's (simulated ms). */
const matchWithinMs = 1000;
/** The calls that place an order at the service. */
export const orderingOperations = ["provisionServers", "replaceServer"] as const;

/** The calls that may add spend to an App: its create, start, restart, and an update (hardware, instances, volumes). */
export const appSpendingOperations = ["createApp", "startApp", "restartApp", "updateApp"] as const;
/** How long after a call its app's new charge may take to show in a reading (wall ms). */
const chargeShowsWithinMs = 10_000;
/** How long a SpendLimit's change may take to reach the operator (wall ms): a call decided before may land after. */
const limitLagMs = 4000;

/**
 * The SpendLimit over the run (wall ms): its maxHourlyCost from each change on, undefined while it
 * is deleted. A call is held to the most any limit allowed over the lag before it, and not checked
 * when the SpendLimit was gone at any moment of it.
 */
export class LimitTimeline {
  readonly #changes: { at: number; micros: number | undefined }[];

  constructor(initialMicros: number) {
    this.#changes = [{ at: Number.NEGATIVE_INFINITY, micros: initialMicros }];
  }

  set(at: number, micros: number | undefined): void {
    this.#changes.push({ at, micros });
    this.#changes.sort((a, b) => a.at - b.at);
  }

  /** The limit a call at `at` is held to, or undefined when none held it throughout the lag before it. */
  at(at: number, lagMs = limitLagMs): number | undefined {
    const from = at - lagMs;
    const inEffect = this.#changes.filter(
      (c, i) => c.at <= at && (this.#changes[i + 1]?.at ?? Infinity) > from,
    );
    if (inEffect.some((c) => c.micros === undefined)) return undefined;
    return Math.max(...inEffect.map((c) => c.micros ?? 0));
  }

  /** How many times it changed after the start. */
  get changes(): number {
    return this.#changes.length - 1;
  }
}

/** What spend-within-limit checked: the calls placed in the namespace, the most counted at one of them. */
export interface SpendSummary {
  limit: SpendLimitPlan;
  orders: number;
  /** App calls that added spend in the namespace (create, start, restart, update), each checked. */
  appCalls: number;
  /** Changes of the SpendLimit (raised, lowered, deleted, re-created). */
  limitChanges: number;
  peakMicros: number;
  /** The SpendLimit's room still taken and refusals at the end (describeSpendLimit), when it was read. */
  atEnd?: string;
}

const spendLimitStatusSchema = z
  .looseObject({
    committed: z.looseObject({ amount: z.string() }).optional(),
    commitments: z
      .array(z.looseObject({ resource: z.string(), hourly: z.string(), since: z.string() }))
      .optional(),
    refused: z.array(z.looseObject({ resource: z.string(), since: z.string() })).optional(),
  })
  .optional();

/**
 * What a SpendLimit still counts at the end, for a report that must tell a refusal that waits for
 * room from one that waits on room nothing will give back: each open commitment and refusal with
 * its age (wall seconds before `now`).
 */
export function describeSpendLimit(status: unknown, now: number): string {
  const parsed = spendLimitStatusSchema.safeParse(status);
  if (!parsed.success) return `status unreadable: ${parsed.error.issues[0]?.message ?? "?"}`;
  const { committed, commitments = [], refused = [] } = parsed.data ?? {};
  const age = (since: string) => `${Math.round((now - Date.parse(since)) / 1000)} s`;
  const open = commitments.map((c) => `${c.resource} at ${c.hourly}/h for ${age(c.since)}`);
  const waiting = refused.map((r) => `${r.resource} for ${age(r.since)}`);
  return (
    `${committed?.amount ?? "0"}/h committed` +
    (open.length === 0 ? "" : ` (${open.join(", ")})`) +
    `; refused: ${waiting.length === 0 ? "none" : waiting.join(", ")}`
  );
}

export interface SpendLimitPlan {
  namespace: string;
  name: string;
  limitMicros: number;
}

/**
 * The SpendLimit of the first namespace: 15 % above what its ServerOrders (those within their
 * maxHourlyCost) cost at their first counts. Apps take room at appReserve until they run, and
 * growth comes on top: some calls wait for room, Stalled SpendLimitExceeded.
 */
export function planSpendLimit(plan: LoadPlan): SpendLimitPlan | undefined {
  const namespace = plan.namespaces[0]?.name;
  if (namespace === undefined) return undefined;
  let micros = 0;
  for (const r of plan.resources) {
    if (r.namespace === namespace && r.role === undefined && r.order !== undefined && !r.order.overBudget)
      micros += r.order.costMicros;
  }
  return { namespace, name: "limit", limitMicros: Math.ceil((micros * 1.15) / 10_000) * 10_000 };
}

/** An order the service listed (any namespace): when it was made, its catalog price and count. */
interface OrderSeen {
  id: string;
  createdAtSim: number;
  price: number;
  count: number;
}

/** A ServerOrder of the limited namespace in one cluster reading. */
interface HolderSeen {
  uid: string;
  deleting: boolean;
  /** Its status states a cost (berth read its servers since it was made). */
  costed: boolean;
}

interface ClusterReading {
  at: number;
  holders: Map<string, HolderSeen>;
}

/** An order in one service reading: pending (no servers yet), failed, or its servers' charges. */
type OrderAt = { pending: true } | { failed: true } | { charges: number[] };

interface ServiceReading {
  at: number;
  orders: Map<string, OrderAt>;
  /** What each app of the limited namespace is charged now (micros/h), by ID; a person's apps left out. */
  apps: Map<string, number>;
  /** Projects of the limited namespace, by ID. */
  projects: Set<string>;
}

/** A call berth made that placed `order`, at `at` (wall ms). */
interface Placement {
  order: OrderSeen;
  at: number;
  requestId: string;
  operation: string;
}

/** Server states the service charges in full (as the simulator bills them); hibernated ones pay 10 %. */
const billedStates = new Set(["running", "rebooting", "waking"]);
const diskStates = new Set(["hibernating", "hibernated"]);

/** What the readings of the cluster and the service, and the log's ordering calls, show of the limited namespace. */
export class SpendHistory {
  readonly limit: SpendLimitPlan;
  readonly #ledger: Ledger;
  readonly #orders = new Map<string, OrderSeen>();
  /** Order ID → the name of the ServerOrder (of the limited namespace) whose status listed it. */
  readonly #holders = new Map<string, string>();
  readonly #cluster: ClusterReading[] = [];
  readonly #service: ServiceReading[] = [];
  readonly #calls = new Map<string, RequestRecord>();
  readonly #appCalls = new Map<string, RequestRecord>();
  readonly limits: LimitTimeline;

  constructor(limit: SpendLimitPlan, ledger: Ledger) {
    this.limit = limit;
    this.#ledger = ledger;
    this.limits = new LimitTimeline(limit.limitMicros);
  }

  /** The log's records of the app calls that may add spend. */
  addAppCalls(records: readonly RequestRecord[]): void {
    for (const record of records) this.#appCalls.set(record.requestId, record);
  }

  /** The log's records of the ordering calls, kept before it rolls over. */
  addCalls(records: readonly RequestRecord[]): void {
    for (const record of records) this.#calls.set(record.requestId, record);
  }

  observeCluster(lists: ReadonlyMap<Kind, readonly Resource[]>, readAt: number): void {
    const holders = new Map<string, HolderSeen>();
    for (const r of lists.get("ServerOrder") ?? []) {
      if (r.metadata.namespace !== this.limit.namespace) continue;
      // Copies and adopters manage nothing: only the planned ServerOrders hold orders.
      const tracked = this.#ledger.get(`${r.metadata.namespace}/ServerOrder/${r.metadata.name}`);
      if (tracked === undefined || tracked.plan.role !== undefined) continue;
      const status = (r.status ?? {}) as {
        orderId?: unknown;
        growthOrders?: { id?: unknown }[];
        replacements?: { orderId?: unknown }[];
        cost?: { hourly?: unknown };
      };
      const ids = [
        status.orderId,
        ...(status.growthOrders ?? []).map((g) => g.id),
        ...(status.replacements ?? []).map((g) => g.orderId),
      ];
      for (const id of ids) if (typeof id === "string") this.#holders.set(id, r.metadata.name);
      holders.set(r.metadata.name, {
        uid: r.metadata.uid,
        deleting: r.metadata.deletionTimestamp !== undefined,
        costed: status.cost?.hourly !== undefined,
      });
    }
    this.#cluster.push({ at: readAt, holders });
  }

  observeService(snapshot: ServiceSnapshot, readAt: number): void {
    const orders = new Map<string, OrderAt>();
    for (const o of snapshot.orders) {
      const createdAt = Date.parse(String(o.createdAt ?? ""));
      if (!Number.isNaN(createdAt) && !this.#orders.has(o.id)) {
        const price = instanceTypes.find((t) => t.id === o.instanceType)?.hourlyPrice ?? 0;
        this.#orders.set(o.id, { id: o.id, createdAtSim: createdAt, price, count: o.count });
      }
      const servers = snapshot.servers.filter((s) => s.orderId === o.id);
      const price = this.#orders.get(o.id)?.price ?? 0;
      orders.set(
        o.id,
        o.state === "failed"
          ? { failed: true }
          : servers.length === 0
            ? { pending: true }
            : { charges: servers.map((s) => charge(s, price)) },
      );
    }
    const ns = `${this.limit.namespace}.`;
    const projects = new Set(snapshot.projects.filter((p) => p.name.startsWith(ns)).map((p) => p.id));
    const apps = new Map<string, number>();
    for (const a of snapshot.apps) {
      if (!a.name.startsWith(ns) || this.#ledger.foreign.has(a.id)) continue;
      const charged = typeof a.currentHourlyCost === "string" ? parseMoney(a.currentHourlyCost) : undefined;
      apps.set(a.id, charged ?? 0);
    }
    this.#service.push({ at: readAt, orders, apps, projects });
  }

  /**
   * Each order berth placed in the limited namespace checked against the limit at the moment it
   * was placed; `toWall` turns a simulated ms into a wall ms.
   */
  check(toWall: (sim: number) => number, violations: Violations, spendingMoves = 0): SpendSummary {
    const placements = this.#placements(toWall);
    const mine = placements.filter((p) => this.#holders.has(p.order.id));
    let peakMicros = 0;
    for (const call of mine) {
      const held = this.committedAt(call, mine);
      peakMicros = Math.max(peakMicros, held.micros);
      const limit = this.limits.at(call.at);
      if (limit !== undefined && held.micros > limit) {
        violations.add(
          "spend-within-limit",
          `${this.limit.namespace} order ${call.order.id}`,
          `${call.operation} ${call.requestId} placed ${call.order.id} (${call.order.count} × ${money(call.order.price)}/h) taking the namespace to at least ${money(held.micros)}/h, above its SpendLimit ${money(limit)}/h: ${held.parts.join(", ")}`,
        );
      }
    }
    const apps = this.#checkAppCalls(toWall, violations);
    peakMicros = Math.max(peakMicros, apps.peakMicros);
    if (mine.length + apps.calls === 0 && spendingMoves > 0) {
      violations.add(
        "spend-within-limit",
        `${this.limit.namespace} no spending call`,
        `matched no call that added spend in ${this.limit.namespace}, though the load made ${spendingMoves} spending moves there: the check saw nothing`,
      );
    }
    return {
      limit: this.limit,
      orders: mine.length,
      appCalls: apps.calls,
      limitChanges: this.limits.changes,
      peakMicros,
    };
  }

  /**
   * Each app call of the limited namespace after which its apps cost more (within
   * chargeShowsWithinMs): what the namespace is charged then (its apps, and the orders its
   * ServerOrders hold) stays within the SpendLimit the call was made under.
   */
  #checkAppCalls(
    toWall: (sim: number) => number,
    violations: Violations,
  ): { calls: number; peakMicros: number } {
    let calls = 0;
    let peakMicros = 0;
    for (const record of this.#appCalls.values()) {
      if (record.replayed || record.status < 200 || record.status >= 300) continue;
      const at = toWall(Date.parse(record.at));
      const projectId = /^\/v1\/projects\/([^/?]+)/.exec(record.path)?.[1];
      // The most the apps were charged over the half minute before: a redeploy that dips and comes back adds nothing.
      const before = this.#service.filter((r) => r.at <= at && r.at >= at - 30_000);
      const after = this.#service.filter((r) => r.at >= at && r.at <= at + chargeShowsWithinMs);
      if (projectId === undefined || !before.some((r) => r.projects.has(projectId))) continue;
      const appsBefore = Math.max(...before.map((r) => sum(r.apps)));
      const added = after.filter((r) => sum(r.apps) > appsBefore);
      if (added.length === 0) continue;
      calls++;
      const limit = this.limits.at(at);
      for (const reading of added) {
        const total = sum(reading.apps) + this.#ordersCharged(reading);
        peakMicros = Math.max(peakMicros, total);
        if (limit === undefined || total <= limit) continue;
        violations.add(
          "spend-within-limit",
          `${this.limit.namespace} ${record.operation} ${record.requestId}`,
          `${record.operation} ${record.path} took the namespace's apps from ${money(appsBefore)}/h to ${money(sum(reading.apps))}/h, the namespace to ${money(total)}/h, above its SpendLimit ${money(limit)}/h`,
        );
        break;
      }
    }
    return { calls, peakMicros };
  }

  /** What the orders of the namespace's ServerOrders are charged in a reading. */
  #ordersCharged(reading: ServiceReading): number {
    let micros = 0;
    for (const [id, seen] of reading.orders) {
      if (this.#holders.has(id) && "charges" in seen) micros += seen.charges.reduce((a, c) => a + c, 0);
    }
    return micros;
  }

  /** The ordering calls the service acted on, each with the order it made (the nearest in time, once each). */
  #placements(toWall: (sim: number) => number): Placement[] {
    const acted = [...this.#calls.values()].filter((r) => r.status === 202 && !r.replayed);
    const pairs: { record: RequestRecord; order: OrderSeen; off: number }[] = [];
    for (const record of acted) {
      const at = Date.parse(record.at);
      for (const order of this.#orders.values()) {
        const off = Math.abs(order.createdAtSim - at);
        if (off <= matchWithinMs) pairs.push({ record, order, off });
      }
    }
    pairs.sort((a, b) => a.off - b.off);
    const calls = new Set<string>();
    const orders = new Set<string>();
    const placements: Placement[] = [];
    for (const { record, order } of pairs) {
      if (calls.has(record.requestId) || orders.has(order.id)) continue;
      calls.add(record.requestId);
      orders.add(order.id);
      const operation = record.operation ?? "provisionServers";
      placements.push({ order, at: toWall(Date.parse(record.at)), requestId: record.requestId, operation });
    }
    return placements.sort((a, b) => a.at - b.at);
  }

  /** The least berth must have counted in the namespace when `call` was placed, and what it is made of. */
  committedAt(call: Placement, placements: readonly Placement[]): { micros: number; parts: string[] } {
    const own = call.order.price * call.order.count;
    let micros = own;
    const parts = [`order ${call.order.id} ${money(own)}`];
    for (const other of placements) {
      if (other === call || other.at > call.at) continue;
      const held = this.#heldAt(other, call.at);
      if (held <= 0) continue;
      parts.push(`order ${other.order.id} ${money(held)}`);
      micros += held;
    }
    return { micros, parts };
  }

  /** What berth's ledger must still count for an earlier order at `at` (wall ms); 0 when it may not. */
  #heldAt(placement: Placement, at: number): number {
    const name = this.#holders.get(placement.order.id);
    const clusterBefore = this.#cluster.filter((r) => r.at <= at).at(-1);
    const clusterAfter = this.#cluster.find((r) => r.at >= at);
    const before = name === undefined ? undefined : clusterBefore?.holders.get(name);
    const after = name === undefined ? undefined : clusterAfter?.holders.get(name);
    // Its ServerOrder there all along, the same object, not being deleted: its room still counts.
    if (before === undefined || after === undefined || before.uid !== after.uid) return 0;
    if (before.deleting || after.deleting) return 0;
    const serviceBefore = this.#service.filter((r) => r.at <= at).at(-1);
    const serviceAfter = this.#service.find((r) => r.at >= at);
    if (serviceBefore === undefined || serviceAfter === undefined) return 0;
    const { order } = placement;
    const ordered = order.price * order.count;
    // The ServerOrder that placed it: a restore without status is another object, whose room is its own.
    const placedBy = this.#cluster.find((r) => r.at >= placement.at)?.holders.get(name ?? "")?.uid;
    const samePlacer = placedBy === before.uid;
    const valueIn = (reading: ServiceReading): number => {
      const seen = reading.orders.get(order.id);
      // Not made yet when the reading was taken (the order came between): its room was just taken.
      if (seen === undefined) return reading.at < placement.at && samePlacer ? ordered : 0;
      if ("failed" in seen) return 0;
      // Pending: its room counts until its servers cost, for as long as the ledger keeps it.
      if ("pending" in seen) return samePlacer && at - placement.at < commitmentTtlMs ? ordered : 0;
      // Its servers: counted from the ServerOrder's stated cost once the room is let go.
      const total = seen.charges.reduce((sum, c) => sum + c, 0);
      return before.costed && after.costed ? Math.min(total, ordered) : 0;
    };
    return Math.min(valueIn(serviceBefore), valueIn(serviceAfter));
  }
}

/** What the service charges for a server now: its price running, 10 % hibernated, nothing leaving or failed. */
function charge(server: { state: string; currentHourlyCost?: unknown }, price: number): number {
  if (typeof server.currentHourlyCost === "string") return parseMoney(server.currentHourlyCost) ?? 0;
  if (billedStates.has(server.state)) return price;
  if (diskStates.has(server.state)) return Math.round(price / 10);
  return 0;
}

function sum(values: ReadonlyMap<string, number>): number {
  let total = 0;
  for (const v of values.values()) total += v;
  return total;
}

function money(micros: number): string {
  return (micros / 1_000_000).toFixed(4);
}
