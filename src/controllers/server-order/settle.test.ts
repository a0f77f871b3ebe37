import { describe, expect, it } from "vitest";
import type { Intent } from "../../api/intents.ts";
import { finalizer } from "../../api/meta.ts";
import { type ServerOrder, serverOrderSchema } from "../../api/server-order.ts";
import type { Order, Server } from "../../hosting/index.ts";
import type { Settlement } from "../skeleton/intents.ts";
import type { OrderFact } from "./actions.ts";
import { newOrderMemory, type OrderKnowledge } from "./memory.ts";
import { reaskOrderIntent, settleOrderIntent } from "./settle.ts";

const now = new Date("2030-01-01T01:00:00Z");
const since = "2030-01-01T00:59:00Z";
const placement = {
  csp: "native",
  region: "eu-central",
  zone: "eu-central-1a",
  instanceType: "native.small",
};
const request = { ...placement, count: 2, gridIds: [] };
const a = `0x${"a".repeat(40)}`;
const b = `0x${"b".repeat(40)}`;

function serverOrder(status: Record<string, unknown> = {}): ServerOrder {
  return serverOrderSchema.parse({
    apiVersion: "berth.dev/v1alpha1",
    kind: "ServerOrder",
    metadata: { name: "batch", namespace: "team", uid: "uid-1", generation: 2, finalizers: [finalizer] },
    spec: { ...placement, count: 2, approved: true, maxHourlyCost: "1" },
    status,
  });
}

function order(id: string, state = "pending", count = 2): Order {
  return { ...placement, id, state, count, gridIds: [], servers: [], error: null, createdAt: since };
}

function server(address: string, state = "running"): Server {
  return { address, orderId: "ord_1", gridIds: [], state, ...placement, createdAt: "2030-01-01T00:10:00Z" };
}

function knowledge(overrides: Partial<OrderKnowledge> = {}): OrderKnowledge {
  return {
    ...newOrderMemory(),
    problem: undefined,
    me: undefined,
    grids: { ok: true, gridIds: [] },
    catalog: undefined,
    candidates: undefined,
    refused: undefined,
    requestId: undefined,
    ...overrides,
  };
}

/** A Pending intent as the skeleton recorded it before the call. */
function intent(operation: string, input: unknown): Intent {
  return {
    operation,
    key: `${operation}.uid-1.abc`,
    input: typeof input === "string" ? input : JSON.stringify(input),
    attempt: 1,
    since,
    state: "Pending",
  };
}

const ordering = intent("orderServers", { request });
const growing = intent("growServers", {
  request,
  step: { after: "ord_1", orders: 0, removed: 0, target: 4 },
});
const replacing = intent("replaceServer", { address: a, token: "t1", request: `${a}@t1`, placement });
const shrinking = intent("shrinkServers", { addresses: [b] });
const waking = intent("powerServers", { action: "wake", addresses: [a, b] });
const hibernating = intent("powerServers", { action: "hibernate", addresses: [a] });

const placed = { orderId: "ord_1", phase: "Provisioned" };
const settle = (i: Intent, k: Partial<OrderKnowledge>, status: Record<string, unknown> = placed) =>
  settleOrderIntent(i, knowledge(k), serverOrder(status), now);

type Outcome = Settlement<OrderFact>["outcome"];

describe("settleOrderIntent: the outcome", () => {
  it.each<[string, () => Settlement<OrderFact>, Outcome, RegExp?]>([
    ["an order call not looked up yet waits", () => settle(ordering, {}, {}), "looking"],
    [
      "an order call with no order found did not act",
      () => settle(ordering, { lookups: { orderServers: [] } }, {}),
      "notActed",
    ],
    [
      "an order call with one candidate acted",
      () => settle(ordering, { lookups: { orderServers: [order("ord_1")] } }, {}),
      "acted",
      /order ord_1/,
    ],
    [
      "an order call with several candidates can't be told: a person picks",
      () => settle(ordering, { lookups: { orderServers: [order("ord_2"), order("ord_3")] } }, {}),
      "unsettled",
      /2 unclaimed orders could be its result \(ord_2, ord_3\)/,
    ],
    ["a growth call not looked up yet waits", () => settle(growing, {}), "looking"],
    [
      "a growth call with no order found did not act",
      () => settle(growing, { lookups: { growServers: [] } }),
      "notActed",
    ],
    [
      "a growth call with one candidate acted",
      () => settle(growing, { lookups: { growServers: [order("ord_2")] } }),
      "acted",
    ],
    [
      "a growth call with several candidates can't be told",
      () => settle(growing, { lookups: { growServers: [order("ord_2"), order("ord_3")] } }),
      "unsettled",
      /ord_2, ord_3/,
    ],
    [
      "a replace call waits for the order lookup",
      () => settle(replacing, { servers: [server(a), server(b)] }),
      "looking",
    ],
    [
      "a replace call waits for the server listing",
      () => settle(replacing, { lookups: { replaceServer: [] }, servers: undefined }),
      "looking",
    ],
    [
      "a replace call with the old server still running and no candidate did not act",
      () => settle(replacing, { lookups: { replaceServer: [] }, servers: [server(a), server(b)] }),
      "notActed",
      /still running/,
    ],
    [
      "a replace call with one candidate acted",
      () =>
        settle(replacing, {
          lookups: { replaceServer: [order("ord_r", "pending", 1)] },
          servers: [server(a)],
        }),
      "acted",
      /order ord_r replaces server/,
    ],
    [
      "a replace call whose server is retiring but no order found can't be told",
      () =>
        settle(replacing, { lookups: { replaceServer: [] }, servers: [server(a, "retiring"), server(b)] }),
      "unsettled",
      /is retiring and no replacement order was found/,
    ],
    [
      "a replace call whose server is gone and no order found can't be told",
      () => settle(replacing, { lookups: { replaceServer: [] }, servers: [server(b)] }),
      "unsettled",
      /is gone/,
    ],
    [
      "a replace call with several candidates can't be told",
      () =>
        settle(replacing, {
          lookups: { replaceServer: [order("ord_r", "pending", 1), order("ord_s", "pending", 1)] },
          servers: [server(a)],
        }),
      "unsettled",
      /orders ord_r, ord_s could be it/,
    ],
    [
      "a replace call whose input names no server can't be told",
      () => settle(intent("replaceServer", "not json"), { lookups: { replaceServer: [] }, servers: [] }),
      "unsettled",
      /names no server/,
    ],
    ["a shrink waits for the server listing", () => settle(shrinking, { servers: undefined }), "looking"],
    [
      "a shrink whose servers are deprovisioning acted",
      () => settle(shrinking, { servers: [server(a), server(b, "deprovisioning")] }),
      "acted",
    ],
    ["a shrink whose servers are gone acted", () => settle(shrinking, { servers: [server(a)] }), "acted"],
    [
      "a shrink whose server still runs did not act",
      () => settle(shrinking, { servers: [server(a), server(b)] }),
      "notActed",
    ],
    [
      "a shrink whose input names no servers can't be told",
      () => settle(intent("shrinkServers", { addresses: "0xb" }), { servers: [] }),
      "unsettled",
      /names no servers/,
    ],
    ["a power call waits for the server listing", () => settle(waking, {}), "looking"],
    [
      "a wake with a server waking acted",
      () => settle(waking, { servers: [server(a, "waking"), server(b, "hibernated")] }),
      "acted",
    ],
    [
      "a wake with the servers still hibernated did not act",
      () => settle(waking, { servers: [server(a, "hibernated"), server(b, "hibernated")] }),
      "notActed",
    ],
    [
      "a hibernate with the server hibernating acted",
      () => settle(hibernating, { servers: [server(a, "hibernating")] }),
      "acted",
    ],
    [
      "a hibernate with the server still running did not act",
      () => settle(hibernating, { servers: [server(a)] }),
      "notActed",
    ],
    [
      "an operation berth does not know can't be told",
      () => settle(intent("moveApp", {}), { servers: [] }),
      "unsettled",
      /does not know this operation/,
    ],
  ])("%s", (_name, run, outcome, says) => {
    const settlement = run();
    expect(settlement.outcome).toBe(outcome);
    if (says !== undefined) {
      const text = settlement.outcome === "unsettled" ? settlement.message : settlement.note;
      expect(text).toMatch(says);
    }
  });
});

/** The facts of an acted settlement. */
function factsOf(settlement: Settlement<OrderFact>) {
  if (settlement.outcome !== "acted") throw new Error(`expected acted, got ${settlement.outcome}`);
  return settlement.facts;
}

describe("settleOrderIntent: what an acted call records", () => {
  it("an order: the order is followed at once and its ID recorded", () => {
    const found = order("ord_1");
    expect(factsOf(settle(ordering, { lookups: { orderServers: [found] } }, {}))).toEqual([
      { type: "following", order: found, generation: 2, dueAt: now.getTime() },
      { type: "recorded", status: { orderId: "ord_1", phase: "Pending" } },
    ]);
  });

  it("a growth order: recorded in growthOrders with the count the intent asked for", () => {
    const found = order("ord_2", "pending", 5);
    const before = { ...placed, growthOrders: [{ id: "ord_0", count: 1, generation: 1 }] };
    expect(factsOf(settle(growing, { lookups: { growServers: [found] } }, before))).toEqual([
      { type: "grown", order: found },
      { type: "due", at: now.getTime() },
      {
        type: "recorded",
        status: {
          growthOrders: [
            { id: "ord_0", count: 1, generation: 1 },
            { id: "ord_2", count: 2, generation: 2 },
          ],
        },
      },
    ]);
  });

  it("a growth order already recorded is not recorded twice", () => {
    const before = { ...placed, growthOrders: [{ id: "ord_2", count: 2, generation: 2 }] };
    const facts = factsOf(settle(growing, { lookups: { growServers: [order("ord_2")] } }, before));
    expect(facts.at(-1)).toEqual({ type: "recorded", status: { growthOrders: before.growthOrders } });
  });

  it("a replacement: the old server retiring, the order followed, the replacement and the echo recorded", () => {
    const found = order("ord_r", "pending", 1);
    const facts = factsOf(
      settle(replacing, { lookups: { replaceServer: [found] }, servers: [server(a), server(b)] }),
    );
    expect(facts).toEqual([
      { type: "passing", addresses: [a], state: "retiring" },
      { type: "replacement", order: found },
      { type: "due", at: now.getTime() },
      {
        type: "recorded",
        status: {
          replacements: [{ address: a, orderId: "ord_r", request: `${a}@t1`, at: now.toISOString() }],
          lastHandledReplaceServer: `${a}@t1`,
        },
      },
    ]);
  });

  it("a replacement already recorded is kept as it was; its order is read at once", () => {
    const found = order("ord_r", "completed", 1);
    const recorded = [{ address: a, orderId: "ord_r", at: "2030-01-01T00:59:30Z" }];
    const facts = factsOf(
      settle(
        replacing,
        { lookups: { replaceServer: [found] }, servers: [server(b)] },
        { ...placed, replacements: recorded },
      ),
    );
    expect(facts.map((f) => f.type)).toEqual(["passing", "replacement", "due", "recorded"]);
    expect(facts.at(-1)).toMatchObject({ status: { replacements: recorded } });
  });

  it("an automatic replacement (no request) records no echo", () => {
    const auto = intent("replaceServer", { address: a, failed: true, placement });
    const facts = factsOf(
      settle(auto, {
        lookups: { replaceServer: [order("ord_r", "completed", 1)] },
        servers: [server(a, "failed")],
      }),
    );
    expect(facts.at(-1)).toEqual({
      type: "recorded",
      status: { replacements: [{ address: a, orderId: "ord_r", at: now.toISOString() }] },
    });
  });

  it("a shrink: its servers recorded as removed", () => {
    const facts = factsOf(
      settle(
        shrinking,
        { servers: [server(a), server(b, "deprovisioning")] },
        { ...placed, removedCount: 1 },
      ),
    );
    expect(facts).toEqual([{ type: "recorded", status: { removing: [b], removedCount: 2 } }]);
  });

  it("a power call: sent when the intent says, so the read-back follows it", () => {
    const facts = factsOf(settle(waking, { servers: [server(a, "running"), server(b, "hibernated")] }));
    expect(facts).toEqual([
      { type: "powerSent", action: "wake", addresses: [a, b], sentAt: Date.parse(since) },
    ]);
  });
});

describe("reaskOrderIntent: a call sent again, identical, before a deletion releases", () => {
  const call = (i: Intent) => ({
    operation: i.operation,
    input: JSON.parse(i.input),
    attempt: 1,
    key: i.key,
  });
  it.each([
    // Never priced again (round.ts): it carries the room its first call recorded, here none.
    ["the first order", ordering, { type: "order", input: request, hourlyCost: "" }],
    [
      "the first order, with the room its first call took",
      { ...ordering, room: "0.104" },
      { type: "order", input: request, hourlyCost: "0.104" },
    ],
    ["a growth order, to the count it was for", growing, { type: "growOrder", input: request, target: 4 }],
    [
      "a replacement of the same server for the same request",
      replacing,
      { type: "replace", address: a, request: `${a}@t1`, again: true },
    ],
  ])("%s", (_, sent, expected) => {
    expect(reaskOrderIntent(sent)).toMatchObject({ ...expected, intent: call(sent) });
  });

  it.each([
    ["a shrink (read back from the servers)", shrinking],
    ["a power call (read back from the servers)", waking],
    ["an order whose recorded input is not JSON", intent("orderServers", "not json")],
  ])("%s: not sent again", (_, sent) => {
    expect(reaskOrderIntent(sent)).toBeUndefined();
  });
});
