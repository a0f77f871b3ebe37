import { describe, expect, it } from "vitest";
import { getCondition } from "../../api/conditions.ts";
import { finalizer } from "../../api/meta.ts";
import { type ServerOrder, serverOrderSchema } from "../../api/server-order.ts";
import type { Order, Server } from "../../hosting/index.ts";
import { pendingRecord } from "../skeleton/intents.ts";
import { observed, order as placed, placement } from "./builders.test-support.ts";
import { foldableOrders, foldHorizon } from "./fold.ts";
import type { OrderObserved } from "./memory.ts";
import { planServerOrder } from "./plan.ts";
import type { OrderPlan } from "./plan-common.ts";

const now = new Date("2030-01-03T00:00:00Z");
const before = Date.parse("2030-01-02T00:00:00Z");
const old = "2030-01-01T00:00:00Z";
const recent = "2030-01-02T12:00:00Z";

/** An order of one server; `createdAt` null: the service's answer lacks it. */
function order(id: string, state = "completed", createdAt: string | null = old): Order {
  const { createdAt: _, ...made } = placed({ id, state, count: 1, servers: [] });
  return createdAt === null ? made : { ...made, createdAt };
}

function server(address: string, orderId: string): Server {
  return { address, orderId, gridIds: [], state: "running", ...placement, createdAt: old };
}

describe("foldableOrders: which emptied orders are old enough to fold", () => {
  const replacements = [
    { address: "0xold", orderId: "ord_r", at: old },
    { address: "0xnew", orderId: "ord_rf", at: old },
  ];
  it.each([
    { case: "a growth order made before the horizon", emptied: order("ord_g"), folds: true },
    { case: "a growth order made after it", emptied: order("ord_g", "completed", recent), folds: false },
    { case: "a failed growth order (delivered none)", emptied: order("ord_g", "failed"), folds: true },
    {
      case: "a growth order with no creation time",
      emptied: order("ord_g", "completed", null),
      folds: false,
    },
    {
      case: "a replacement with no creation time, accepted before the horizon",
      emptied: order("ord_r", "completed", null),
      folds: true,
    },
    {
      case: "a failed replacement (still counts the server it retired)",
      emptied: order("ord_rf", "failed"),
      folds: false,
    },
  ])("$case: $folds", ({ emptied, folds }) => {
    expect(foldableOrders([emptied], replacements, before)).toEqual(folds ? [emptied.id] : []);
  });
});

describe("foldHorizon: no open call of any ServerOrder can take a folded order for its own", () => {
  const now = Date.parse("2030-01-03T00:00:00Z");
  const day = 86_400_000;
  const open = (since: string, state = "Pending") => ({ operation: "growServers", key: "k", state, since });
  it.each([
    { case: "no open call: a day ago", open: [], horizon: "2030-01-02T00:00:00.000Z" },
    {
      case: "a call open for two days: before it, less the clock slack",
      open: [open("2030-01-01T00:00:00Z")],
      horizon: "2029-12-31T23:58:00.000Z",
    },
    {
      case: "a call open for an hour: a day ago still",
      open: [open("2030-01-02T23:00:00Z")],
      horizon: "2030-01-02T00:00:00.000Z",
    },
    {
      case: "a call found not to have acted does not count",
      open: [open("2030-01-01T00:00:00Z", "NotFound")],
      horizon: "2030-01-02T00:00:00.000Z",
    },
  ])("$case", ({ open: calls, horizon }) => {
    expect(new Date(foldHorizon(now, day, calls)).toISOString()).toBe(horizon);
  });

  it("an open call with no readable time folds nothing", () => {
    expect(foldHorizon(now, day, [open("yesterday")])).toBe(Number.NEGATIVE_INFINITY);
  });
});

const first = placed({ id: "ord_1", count: 2, servers: ["0xa", "0xb"] });

function serverOrder(spec: Record<string, unknown>, status: Record<string, unknown>): ServerOrder {
  return serverOrderSchema.parse({
    apiVersion: "berth.dev/v1alpha1",
    kind: "ServerOrder",
    metadata: { name: "batch", uid: "uid-1", generation: 1, finalizers: [finalizer] },
    spec: { ...placement, approved: true, maxHourlyCost: "1", ...spec },
    status: { orderId: "ord_1", phase: "Provisioned", ...status },
  });
}

const plan = (object: ServerOrder, overrides: Partial<OrderObserved>) =>
  planServerOrder({
    serverOrder: object,
    observed: observed({ order: first, growthOrders: [], replacementOrders: [], ...overrides }),
    now,
  });

const entry = (id: string) => ({ id, count: 1, generation: 1 });

/**
 * Grown twice from 2 to 4, then lowered to 3 (g1's server deprovisioned), and a's successor (r1's
 * server) replaced in turn by r2's: g1 and r1 hold no server any more.
 */
const lived = {
  spec: { count: 3 },
  status: {
    growthOrders: [entry("ord_g1"), entry("ord_g2")],
    removedCount: 1,
    replacements: [
      { address: "0xa", orderId: "ord_r1", at: old },
      { address: "0xr1", orderId: "ord_r2", at: old },
    ],
  },
  observed: {
    servers: [server("0xb", "ord_1"), server("0xg2", "ord_g2"), server("0xr2", "ord_r2")],
    growthOrders: [order("ord_g1"), order("ord_g2")],
    replacementOrders: [order("ord_r1"), order("ord_r2")],
  },
};

function outcome(result: OrderPlan) {
  const { growthOrders, replacements, folded, removedCount } = result.status;
  return {
    actions: result.actions.map((a) => a.type),
    ready: getCondition(result.status.conditions, "Ready")?.status,
    growthOrders: growthOrders?.map((g) => g.id),
    replacements: replacements?.map((r) => r.orderId),
    folded,
    removedCount,
  };
}

describe("a settled ServerOrder folds the entries of orders that hold no server", () => {
  const foldable = ["ord_g1", "ord_r1"];

  it("folds g1 into status.folded and drops r1, and stays Ready with nothing to do", () => {
    const folded = plan(serverOrder(lived.spec, lived.status), { ...lived.observed, foldable });
    expect(outcome(folded)).toEqual({
      actions: [],
      ready: "True",
      growthOrders: ["ord_g2"],
      replacements: ["ord_r2"],
      folded: { growthOrders: 1, servers: 1 },
      removedCount: 1,
    });
    // The next reconcile, from the folded status, holds the same count: no order, no shrink.
    const again = plan(serverOrder(lived.spec, folded.status), {
      ...lived.observed,
      growthOrders: [order("ord_g2")],
      replacementOrders: [order("ord_r2")],
    });
    expect(outcome(again)).toMatchObject({
      actions: [],
      ready: "True",
      folded: { growthOrders: 1, servers: 1 },
    });
  });

  it("keeps the last growth entry, which tells whether the last growth failed", () => {
    const status = {
      ...lived.status,
      growthOrders: [{ ...entry("ord_g1"), generation: 0 }],
      removedCount: 0,
    };
    const result = plan(serverOrder({ count: 2 }, status), {
      ...lived.observed,
      servers: lived.observed.servers.filter((s) => s.orderId !== "ord_g2"),
      growthOrders: [order("ord_g1", "failed")],
      foldable: ["ord_g1"],
    });
    expect(outcome(result)).toMatchObject({ ready: "True", growthOrders: ["ord_g1"], folded: undefined });
  });

  it("a failed growth order folds as 0 servers", () => {
    const status = { ...lived.status, removedCount: 0 };
    const result = plan(serverOrder({ count: 3 }, status), {
      ...lived.observed,
      growthOrders: [order("ord_g1", "failed"), order("ord_g2")],
      foldable: ["ord_g1"],
    });
    expect(outcome(result)).toMatchObject({ ready: "True", folded: { growthOrders: 1, servers: 0 } });
  });

  it("folds nothing while a call's outcome is open", () => {
    const intent = pendingRecord(
      { operation: "shrinkServers", key: "k1", attempt: 1, input: { addresses: ["0xz"] } },
      undefined,
      now,
    );
    const status = { ...lived.status, intents: [intent] };
    const result = plan(serverOrder(lived.spec, status), { ...lived.observed, foldable });
    expect(outcome(result)).toMatchObject({ growthOrders: ["ord_g1", "ord_g2"], folded: undefined });
  });

  it("folds nothing while the ServerOrder is not settled (a growth to order)", () => {
    const result = plan(serverOrder({ count: 4 }, lived.status), { ...lived.observed, foldable });
    expect(outcome(result)).toMatchObject({ growthOrders: ["ord_g1", "ord_g2"], folded: undefined });
    expect(result.actions.map((a) => a.type)).toEqual(["estimate"]);
  });

  it("a growth after a fold asks under the key it would have without the fold (no earlier key repeats)", () => {
    const grow = (status: Record<string, unknown>) =>
      plan(serverOrder({ count: 4 }, status), lived.observed).actions.find((a) => a.type === "estimate");
    const unfolded = grow(lived.status);
    const folded = grow({
      ...lived.status,
      growthOrders: [entry("ord_g2")],
      folded: { growthOrders: 1, servers: 1 },
    });
    const forgotten = grow({ ...lived.status, growthOrders: [entry("ord_g2")], removedCount: 0 });
    expect(folded).toEqual(unfolded);
    expect(forgotten).not.toEqual(unfolded);
  });
});
