import { instanceTypes } from "../../src/simulator/catalog.ts";
import type { Ledger, Violations } from "./ledger.ts";
import { decimal, type LoadPlan, signatureOf } from "./plan.ts";
import type { ServiceSnapshot } from "./service.ts";
import type { RequestRecord } from "./simulator.ts";

// spend-within-limit: what berth's own calls commit in the namespace with a SpendLimit stays within
// it. Told from the service's side, as a lower bound of what berth must have counted at each of its
// orders: the request log says when each order was placed (a non-replayed 202; a dry run answers
// 200) but not what it asked for, so each is matched to the order the service lists with that
// creation time, at the catalog price × its count (berth's estimate). A server stops counting from
// the last reading that showed it billing and not failed (it left some time after), a failed order
// from the last reading that showed it not failed; an App counts at appReserve × instances.max (as
// the service has it) only between two readings in a row that both saw it on its way to running
// (requested, building, provisioning: berth counts its stated cost once it runs, and takes no room
// for an App created stopped). So the check should never invent an overshoot, but it misses one
// shorter than a reading interval, Apps created and gone between readings, and spend that does not
// come from provisionServers (a replacement through replaceServer).

export const appReserveMicros = 100_000;
/** How far an order's creation time may be from its request's (simulated ms). */
const matchWithinMs = 1000;

/** What spend-within-limit checked: the namespace's orders placed, the most committed at one of them. */
export interface SpendSummary {
  limit: SpendLimitPlan;
  orders: number;
  peakMicros: number;
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

interface OrderSeen {
  id: string;
  /** Wall ms of the last reading that showed it not failed, and whether one showed it failed. */
  lastOk: number | undefined;
  failed: boolean;
  createdAtSim: number;
  namespace: string;
  price: number;
  count: number;
}

interface ServerSeen {
  orderId: string;
  /** Wall ms of the last reading that showed it billing, if any did. */
  lastBilling: number | undefined;
  left: boolean;
}

/** An App at one reading: whether it was on its way to running, and at what instances.max. */
interface AppReading {
  at: number;
  onTheWay: boolean;
  max: number;
}

interface AppSeen {
  label: string;
  readings: AppReading[];
}

/** The states of an App berth has asked to run that does not run yet (created or started, not stopped). */
const onTheWay = new Set(["requested", "building", "provisioning"]);

/** Server states that no longer count: leaving, or failed (berth may count it out and replace it). */
const leaving = new Set(["deprovisioning", "retiring", "failed"]);

/** What the service readings show of the limited namespace's orders, servers and Apps. */
export class SpendHistory {
  readonly limit: SpendLimitPlan;
  readonly #ledger: Ledger;
  readonly #orders = new Map<string, OrderSeen>();
  readonly #servers = new Map<string, ServerSeen>();
  readonly #apps = new Map<string, AppSeen>();
  readonly #provisions = new Map<string, RequestRecord>();

  constructor(limit: SpendLimitPlan, ledger: Ledger) {
    this.limit = limit;
    this.#ledger = ledger;
  }

  /** The log's provisionServers records, kept before it rolls over. */
  addProvisions(records: readonly RequestRecord[]): void {
    for (const record of records) this.#provisions.set(record.requestId, record);
  }

  observe(snapshot: ServiceSnapshot, readAt: number): void {
    for (const o of snapshot.orders) {
      const namespace = this.#ledger.bySignature(signatureOf(o))?.plan.namespace;
      const createdAt = Date.parse(String(o.createdAt ?? ""));
      if (namespace !== this.limit.namespace || Number.isNaN(createdAt)) continue;
      const price = instanceTypes.find((t) => t.id === o.instanceType)?.hourlyPrice ?? 0;
      const seen = this.#orders.get(o.id) ?? {
        id: o.id,
        lastOk: undefined,
        failed: false,
        createdAtSim: createdAt,
        namespace,
        price,
        count: o.count,
      };
      if (o.state === "failed") seen.failed = true;
      else if (!seen.failed) seen.lastOk = readAt;
      this.#orders.set(o.id, seen);
    }
    const listed = new Set<string>();
    for (const s of snapshot.servers) {
      if (!this.#orders.has(s.orderId)) continue;
      listed.add(s.address);
      const seen = this.#servers.get(s.address) ?? {
        orderId: s.orderId,
        lastBilling: undefined,
        left: false,
      };
      if (leaving.has(s.state)) seen.left = true;
      else if (!seen.left) seen.lastBilling = readAt;
      this.#servers.set(s.address, seen);
    }
    for (const [address, seen] of this.#servers) if (!listed.has(address)) seen.left = true;
    for (const a of snapshot.apps) {
      const match = /^([a-z0-9-]+)\.([a-z0-9-]+)(\.v\d+)?$/.exec(a.name);
      if (match?.[1] !== this.limit.namespace || match[2] === undefined) continue;
      const seen = this.#apps.get(a.id) ?? { label: `app ${a.id} (${a.name})`, readings: [] };
      const state = (a as { state?: unknown }).state;
      const max = (a.config as { instances?: { max?: unknown } } | undefined)?.instances?.max;
      seen.readings.push({
        at: readAt,
        onTheWay: typeof state === "string" && onTheWay.has(state),
        max: typeof max === "number" ? max : 1,
      });
      this.#apps.set(a.id, seen);
    }
  }

  /**
   * Each order berth placed (`provisions`: the log's provisionServers records) checked against the
   * limit at the moment it was placed; `toWall` turns a simulated ms into a wall ms.
   */
  check(toWall: (sim: number) => number, violations: Violations): SpendSummary {
    const placed = [...this.#provisions.values()].filter((r) => r.status === 202 && !r.replayed);
    const matched = new Map<string, { order: OrderSeen; at: number; requestId: string }>();
    for (const record of placed) {
      const at = Date.parse(record.at);
      let best: OrderSeen | undefined;
      for (const o of this.#orders.values()) {
        const off = Math.abs(o.createdAtSim - at);
        if (off <= matchWithinMs && (best === undefined || off < Math.abs(best.createdAtSim - at))) best = o;
      }
      if (best !== undefined && !matched.has(best.id))
        matched.set(best.id, { order: best, at: toWall(at), requestId: record.requestId });
    }
    const orders = [...matched.values()].sort((a, b) => a.at - b.at);
    let peakMicros = 0;
    for (const call of orders) {
      const held = this.committedAt(call.at, orders);
      peakMicros = Math.max(peakMicros, held.micros);
      if (held.micros > this.limit.limitMicros) {
        violations.add(
          "spend-within-limit",
          `${this.limit.namespace} order ${call.order.id}`,
          `provisionServers ${call.requestId} placed ${call.order.id} (${call.order.count} × ${decimal(call.order.price)}/h) taking the namespace to at least ${decimal(held.micros)}/h, above its SpendLimit ${decimal(this.limit.limitMicros)}/h: ${held.parts.join(", ")}`,
        );
      }
    }
    return { limit: this.limit, orders: orders.length, peakMicros };
  }

  /** The least the namespace must have had committed at `at` (wall ms), and what it is made of. */
  committedAt(
    at: number,
    orders: readonly { order: OrderSeen; at: number }[],
  ): { micros: number; parts: string[] } {
    let micros = 0;
    const parts: string[] = [];
    for (const { order, at: placedAt } of orders) {
      if (placedAt > at || (order.failed && (order.lastOk ?? placedAt) < at)) continue;
      const gone = [...this.#servers.values()].filter(
        (s) => s.orderId === order.id && s.left && (s.lastBilling ?? placedAt) < at,
      ).length;
      const held = order.price * Math.max(0, order.count - gone);
      if (held > 0) parts.push(`order ${order.id} ${decimal(held)}`);
      micros += held;
    }
    for (const app of this.#apps.values()) {
      // Counted only between two readings in a row that both saw it on its way to running.
      const before = app.readings.filter((r) => r.at <= at).at(-1);
      const after = app.readings.find((r) => r.at >= at);
      if (before?.onTheWay !== true || after?.onTheWay !== true) continue;
      const reserve = appReserveMicros * Math.min(before.max, after.max);
      parts.push(`${app.label} ${decimal(reserve)}`);
      micros += reserve;
    }
    return { micros, parts };
  }
}
