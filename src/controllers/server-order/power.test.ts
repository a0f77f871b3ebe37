import { describe, expect, it } from "vitest";
import { getCondition } from "../../api/conditions.ts";
import { finalizer } from "../../api/meta.ts";
import { type ServerOrder, serverOrderSchema } from "../../api/server-order.ts";
import { idempotencyKey, type Me, type Order, type Server } from "../../hosting/index.ts";
import { pendingRecord } from "../skeleton/intents.ts";
import type { OrderAction } from "./actions.ts";
import type { OrderObserved, PowerAttempt } from "./memory.ts";
import { planServerOrder } from "./plan.ts";
import type { OrderPlan } from "./plan-common.ts";

const now = new Date("2030-01-01T01:00:00Z");
const placement = {
  csp: "native",
  region: "eu-central",
  zone: "eu-central-1a",
  instanceType: "native.small",
};
const approved = { approved: true, maxHourlyCost: "0.20" };
const placed = { orderId: "ord_1", phase: "Provisioned" };

function serverOrder(
  spec: Record<string, unknown>,
  status: Record<string, unknown> = placed,
  generation = 2,
) {
  return serverOrderSchema.parse({
    apiVersion: "berth.dev/v1alpha1",
    kind: "ServerOrder",
    metadata: { name: "batch", namespace: "team", uid: "uid-1", generation, finalizers: [finalizer] },
    spec: { ...placement, count: 2, ...approved, ...spec },
    status,
  });
}

const me = (scopes: string[]): Me => ({
  user: { id: "u1", email: "u@example.test" },
  apiKey: { id: "k1", scopes, projectIds: [], expiresAt: null },
  oauthClient: null,
});

function order(overrides: Partial<Order> = {}): Order {
  const base = { id: "ord_1", state: "completed", count: 2, gridIds: [], servers: [], error: null };
  return { ...placement, ...base, createdAt: "2030-01-01T00:10:00Z", ...overrides };
}

function server(address: string, state = "running", orderId = "ord_1", minute = 10): Server {
  const createdAt = `2030-01-01T00:${String(minute).padStart(2, "0")}:00Z`;
  return { address, orderId, gridIds: [], state, ...placement, createdAt };
}

const two = [server("0xa"), server("0xb", "running", "ord_1", 11)];

function observed(overrides: Partial<OrderObserved> = {}): OrderObserved {
  return {
    problem: undefined,
    me: me(["pools:write", "compute:spend"]),
    grids: { ok: true, gridIds: [] },
    catalog: undefined,
    estimate: undefined,
    order: order(),
    gone: false,
    servers: two,
    candidates: undefined,
    refused: undefined,
    requestId: "req_1",
    growthOrders: [],
    ...overrides,
  };
}

const plan = (object: ServerOrder, overrides: Partial<OrderObserved> = {}) =>
  planServerOrder({ serverOrder: object, observed: observed(overrides), now });

function summary(result: OrderPlan) {
  const stalled = getCondition(result.status.conditions, "Stalled");
  const reconciling = getCondition(result.status.conditions, "Reconciling");
  const ready = getCondition(result.status.conditions, "Ready");
  return {
    actions: result.actions.map((a) => a.type),
    ready: ready?.status,
    reason:
      stalled?.status === "True"
        ? stalled.reason
        : reconciling?.status === "True"
          ? reconciling.reason
          : ready?.reason,
    stalled: stalled?.status === "True",
  };
}

const hibernated = [server("0xa", "hibernated"), server("0xb", "hibernated", "ord_1", 11)];
const wakeBlocked = (retryAt: number): PowerAttempt => ({
  action: "wake",
  addresses: ["0xa", "0xb"],
  sentAt: now.getTime() - 10_000,
  failures: 1,
  retryAt,
});

describe("spec.power", () => {
  it.each<[string, () => OrderPlan, ReturnType<typeof summary>]>([
    [
      "hibernates running servers with one call",
      () => plan(serverOrder({ power: "Hibernated" })),
      { actions: ["power"], ready: "Unknown", reason: "Progressing", stalled: false },
    ],
    [
      "only looks again while they hibernate",
      () =>
        plan(serverOrder({ power: "Hibernated" }), {
          servers: two.map((s) => ({ ...s, state: "hibernating" })),
        }),
      { actions: [], ready: "Unknown", reason: "Progressing", stalled: false },
    ],
    [
      "is Ready once hibernated",
      () => plan(serverOrder({ power: "Hibernated" }), { servers: hibernated }),
      { actions: [], ready: "True", reason: "Succeeded", stalled: false },
    ],
    [
      "wakes hibernated servers when On",
      () => plan(serverOrder({ power: "On" }), { servers: hibernated }),
      { actions: ["power"], ready: "Unknown", reason: "Progressing", stalled: false },
    ],
    [
      "waits out the backoff of a wake the service did not act on: WakeBlocked, not Stalled",
      () => plan(serverOrder({}), { servers: hibernated, power: wakeBlocked(now.getTime() + 8000) }),
      { actions: [], ready: "Unknown", reason: "WakeBlocked", stalled: false },
    ],
    [
      "wakes again once the backoff is over, still WakeBlocked",
      () => plan(serverOrder({}), { servers: hibernated, power: wakeBlocked(now.getTime() - 1) }),
      { actions: ["power"], ready: "Unknown", reason: "WakeBlocked", stalled: false },
    ],
    [
      "does not wake without compute:spend",
      () => plan(serverOrder({}), { servers: hibernated, me: me(["pools:write"]) }),
      { actions: [], ready: "False", reason: "MissingScopes", stalled: true },
    ],
    [
      "hibernates with pools:write alone",
      () => plan(serverOrder({ power: "Hibernated" }), { me: me(["pools:write"]) }),
      { actions: ["power"], ready: "Unknown", reason: "Progressing", stalled: false },
    ],
  ])("%s", (_name, make, expected) => {
    expect(summary(make())).toEqual(expected);
  });

  it("names the servers' action and says the disks are kept and charged", () => {
    const hibernating = plan(serverOrder({ power: "Hibernated" })).actions[0];
    if (hibernating?.type !== "power") throw new Error("expected a power action");
    expect(hibernating).toMatchObject({ type: "power", action: "hibernate", addresses: ["0xa", "0xb"] });
    // The intent recorded before the call holds what it acts on: the lookup after a lost answer reads it.
    expect(hibernating.intent).toMatchObject({
      operation: "powerServers",
      attempt: 1,
      input: { action: "hibernate", addresses: ["0xa", "0xb"] },
    });
    expect(hibernating.intent.key).toMatch(/^powerServers\.uid-1\./);
    const done = plan(serverOrder({ power: "Hibernated" }), { servers: hibernated });
    expect(getCondition(done.status.conditions, "Ready")?.message).toMatch(/hibernated.*disk.*charged/);
    expect(done.status.servers?.map((s) => s.power)).toEqual(["Hibernated", "Hibernated"]);
  });

  it("looks again when the backoff ends", () => {
    const waiting = plan(serverOrder({}), { servers: hibernated, power: wakeBlocked(now.getTime() + 8000) });
    expect(waiting.poll).toEqual({ ms: 8000 });
    expect(getCondition(waiting.status.conditions, "Reconciling")?.message).toMatch(/no capacity.*attempt 2/);
  });
});

/** The estimate the service answers for the plan's dry run. */
function estimateFor(object: ServerOrder, overrides: Partial<OrderObserved> = {}): Partial<OrderObserved> {
  const ask = plan(object, overrides).actions.find((a) => a.type === "estimate");
  if (ask?.type !== "estimate") throw new Error("no dry run asked for");
  const count = ask.input.count;
  const hourlyCost = (0.052 * count).toFixed(4);
  const estimate = { hourlyCost, perServerHourlyCost: "0.0520", currency: "USD", count, ...placement };
  return { ...overrides, estimate: { idempotencyKey: ask.idempotencyKey, estimate } };
}

const growOf = (actions: OrderAction[]) => {
  const action = actions.find((a) => a.type === "growOrder");
  return action?.type === "growOrder" ? action : undefined;
};

describe("spec.count after the order", () => {
  const grown = serverOrder({ count: 4, maxHourlyCost: "0.25" });

  it("asks for a dry run of only the difference", () => {
    const ask = plan(grown).actions[0];
    expect(ask).toMatchObject({ type: "estimate", input: { count: 2 } });
    expect(ask?.type === "estimate" && ask.idempotencyKey).toMatch(/^estimateServers\.uid-1\./);
  });

  it("orders the difference once approved and within maxHourlyCost for all the servers", () => {
    const result = plan(grown, estimateFor(grown));
    const grow = growOf(result.actions);
    expect(grow).toMatchObject({ input: { count: 2 }, target: 4 });
    // The intent's input holds the request and the step it grows by: the lookup after a lost answer uses it.
    expect(grow?.intent).toMatchObject({
      operation: "growServers",
      attempt: 1,
      input: { request: grow?.input, step: { after: "ord_1", orders: 0, removed: 0, target: 4 } },
    });
    expect(grow?.intent.key).toMatch(/^growServers\.uid-1\./);
    expect(result.status.estimate).toEqual({ hourlyCost: "0.2080", currency: "USD" });
  });

  it("keys the growth order by the ServerOrder and its target, never by time", () => {
    const first = growOf(plan(grown, estimateFor(grown)).actions)?.intent.key;
    expect(first).toMatch(/^growServers\./);
    const later = planServerOrder({
      serverOrder: grown,
      observed: observed(estimateFor(grown)),
      now: new Date(now.getTime() + 3_600_000),
    });
    expect(growOf(later.actions)?.intent.key).toBe(first);
    const five = serverOrder({ count: 5, maxHourlyCost: "1" });
    expect(growOf(plan(five, estimateFor(five)).actions)?.intent.key).not.toBe(first);
  });

  it.each<[string, () => OrderPlan, ReturnType<typeof summary>]>([
    [
      "refuses growth above maxHourlyCost (all the servers)",
      () => plan(serverOrder({ count: 4, maxHourlyCost: "0.15" }), estimateFor(grown)),
      { actions: [], ready: "False", reason: "OverBudget", stalled: true },
    ],
    [
      "waits for approval before growing",
      () =>
        plan(
          serverOrder({ count: 4, approved: false }),
          estimateFor(serverOrder({ count: 4, approved: false })),
        ),
      { actions: [], ready: "False", reason: "AwaitingApproval", stalled: false },
    ],
    [
      "looks for the order of a growth call whose answer was lost, ordering nothing meanwhile",
      () =>
        plan(
          serverOrder(
            { count: 4 },
            { ...placed, growing: { target: 4, count: 2, since: "2030-01-01T00:59:00Z" } },
          ),
        ),
      { actions: [], ready: "Unknown", reason: "Progressing", stalled: false },
    ],
    [
      "adopts the one growth order the lost call placed",
      () =>
        plan(
          serverOrder(
            { count: 4 },
            { ...placed, growing: { target: 4, count: 2, since: "2030-01-01T00:59:00Z" } },
          ),
          {
            growthCandidates: [order({ id: "ord_2", state: "pending" })],
          },
        ),
      { actions: ["adoptGrowth"], ready: "Unknown", reason: "Progressing", stalled: false },
    ],
    [
      "stalls when several orders could be the lost call's",
      () =>
        plan(
          serverOrder(
            { count: 4 },
            { ...placed, growing: { target: 4, count: 2, since: "2030-01-01T00:59:00Z" } },
          ),
          {
            growthCandidates: [order({ id: "ord_2" }), order({ id: "ord_3" })],
          },
        ),
      { actions: [], ready: "False", reason: "OrderUncertain", stalled: true },
    ],
    [
      "follows a growth order in flight",
      () =>
        plan(
          serverOrder({ count: 4 }, { ...placed, growthOrders: [{ id: "ord_2", count: 2, generation: 2 }] }),
          {
            growthOrders: [order({ id: "ord_2", state: "provisioning" })],
          },
        ),
      { actions: [], ready: "Unknown", reason: "Progressing", stalled: false },
    ],
    [
      "is Ready when the growth order delivered",
      () =>
        plan(
          serverOrder({ count: 4 }, { ...placed, growthOrders: [{ id: "ord_2", count: 2, generation: 2 }] }),
          {
            growthOrders: [order({ id: "ord_2" })],
            servers: [...two, server("0xc", "running", "ord_2", 20), server("0xd", "running", "ord_2", 20)],
          },
        ),
      { actions: [], ready: "True", reason: "Succeeded", stalled: false },
    ],
    [
      "stalls when the growth order failed, ordering nothing again",
      () =>
        plan(
          serverOrder({ count: 4 }, { ...placed, growthOrders: [{ id: "ord_2", count: 2, generation: 2 }] }),
          {
            growthOrders: [
              order({
                id: "ord_2",
                state: "failed",
                error: { code: "capacity_unavailable", message: "full" },
              }),
            ],
          },
        ),
      { actions: [], ready: "False", reason: "CapacityUnavailable", stalled: true },
    ],
    [
      "waits for the servers a shrink deprovisions",
      () =>
        plan(serverOrder({ count: 1 }, { ...placed, removedCount: 1, removing: ["0xb"] }), {
          servers: [server("0xa"), server("0xb", "deprovisioning")],
        }),
      { actions: [], ready: "Unknown", reason: "Progressing", stalled: false },
    ],
  ])("%s", (_name, make, expected) => {
    expect(summary(make())).toEqual(expected);
  });

  it("after a lost growth answer and no order found, orders again under the same key", () => {
    const first = growOf(plan(grown, estimateFor(grown)).actions);
    if (first === undefined) throw new Error("no growth order planned");
    // The skeleton settled the Pending intent: the lookup on its input found no order (NotFound).
    const notFound = { ...pendingRecord(first.intent, undefined, now), state: "NotFound" as const };
    const settled = serverOrder({ count: 4, maxHourlyCost: "0.25" }, { ...placed, intents: [notFound] });
    const again = growOf(plan(settled, estimateFor(settled)).actions);
    expect(again?.intent.key).toBe(first.intent.key);
    expect(again?.intent.attempt).toBe(1);
    expect(again?.input).toEqual(first.input);
  });

  it("after the service refused a growth order, estimates afresh and orders under a new key", () => {
    const first = growOf(plan(grown, estimateFor(grown)).actions);
    if (first === undefined) throw new Error("no growth order planned");
    const refused = { ...pendingRecord(first.intent, undefined, now), state: "Refused" as const };
    const after = serverOrder({ count: 4, maxHourlyCost: "0.25" }, { ...placed, intents: [refused] });
    // The dry run shown before the refusal is not the one the next attempt is checked against.
    expect(plan(after, estimateFor(grown)).actions.map((a) => a.type)).toEqual(["estimate"]);
    const again = growOf(plan(after, estimateFor(after)).actions);
    expect(again?.intent.attempt).toBe(2);
    expect(again?.intent.key).toMatch(/^growServers\.uid-1\./);
    expect(again?.intent.key).not.toBe(first.intent.key);
  });

  it("resends a growth call an earlier version marked (status.growing) under the key it sent", () => {
    const marked = serverOrder(
      { count: 4 },
      { ...placed, growing: { target: 4, count: 2, since: "2030-01-01T00:59:00Z" } },
    );
    const again = growOf(plan(marked, { growthCandidates: [] }).actions);
    const step = { after: "ord_1", orders: 0, removed: 0, target: 4 };
    expect(again).toMatchObject({ input: { count: 2 }, target: 4 });
    expect(again?.intent.key).toBe(
      idempotencyKey("uid-1", "orderServers", { ...again?.input, growth: step }),
    );
  });

  it("shrinks by deprovisioning the newest servers, the intent recorded first naming them", () => {
    const three = [
      server("0xa"),
      server("0xc", "running", "ord_2", 30),
      server("0xb", "running", "ord_1", 11),
    ];
    const status = { ...placed, growthOrders: [{ id: "ord_2", count: 1, generation: 2 }] };
    const result = plan(serverOrder({ count: 1 }, status), {
      servers: three,
      growthOrders: [order({ id: "ord_2" })],
    });
    expect(result.actions).toEqual([
      {
        type: "shrink",
        addresses: ["0xc", "0xb"],
        alreadyRecorded: false,
        intent: expect.objectContaining({
          operation: "shrinkServers",
          attempt: 1,
          input: { addresses: ["0xc", "0xb"] },
        }),
      },
    ]);
  });

  it("deprovisions again only the servers it recorded when the call's answer was lost", () => {
    const status = { ...placed, removedCount: 1, removing: ["0xb"] };
    const result = plan(serverOrder({ count: 1 }, status));
    expect(result.actions).toEqual([
      {
        type: "shrink",
        addresses: ["0xb"],
        alreadyRecorded: true,
        intent: expect.objectContaining({ operation: "shrinkServers", input: { addresses: ["0xb"] } }),
      },
    ]);
  });

  it("is Ready once the removed servers are gone, and forgets them", () => {
    const status = { ...placed, removedCount: 1, removing: ["0xb"] };
    const result = plan(serverOrder({ count: 1 }, status), { servers: [server("0xa")] });
    expect(summary(result)).toMatchObject({ actions: [], ready: "True" });
    expect(result.status.removing).toBeUndefined();
    expect(result.status.removedCount).toBe(1);
  });
});
