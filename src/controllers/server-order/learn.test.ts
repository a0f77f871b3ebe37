import { describe, expect, it } from "vitest";
import {
  HostingApiError,
  type HostingError,
  HostingNetworkError,
  HostingResponseInvalidError,
  type Order,
  type Server,
} from "../../hosting/index.ts";
import { describeFailure } from "../service/failure.ts";
import type { Failed } from "../skeleton/kind.ts";
import type { OrderAction, OrderFact } from "./actions.ts";
import { learnOrder } from "./learn.ts";
import { newOrderMemory, type OrderKnowledge, type PowerAttempt } from "./memory.ts";

const spec = { csp: "native", region: "eu-central", zone: "eu-central-1a", instanceType: "native.small" };
const input = { ...spec, count: 2 };

function order(id: string, state = "completed"): Order {
  return { id, state, ...spec, count: 2, gridIds: [], servers: [], error: null, pollAfterSec: null };
}

function server(address: string, state = "running"): Server {
  return { address, orderId: "ord_1", gridIds: [], state, ...spec, hourlyCost: "0.0520" };
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
    requestId: "req_0",
    growthCandidates: undefined,
    ...overrides,
  };
}

const apiError = (kind: "terminal" | "retryable" | "uncertain") =>
  new HostingApiError({
    code: "validation_failed",
    kind,
    operation: "orderServers",
    message: "no",
    status: 422,
  });

function failed(action: OrderAction, error: HostingError): Failed<OrderAction> {
  return { type: "failed", action, failure: describeFailure(error, "placing the order"), error };
}

const intent = (operation: string) => ({ operation, input: {}, attempt: 1, key: `${operation}-key` });
const orderAction: OrderAction = {
  type: "order",
  input,
  intent: intent("orderServers"),
  hourlyCost: "0.10",
};
const growAction: OrderAction = { type: "growOrder", input, intent: intent("growServers"), target: 4 };
const powerAction: OrderAction = {
  type: "power",
  action: "wake",
  addresses: ["0xa"],
  intent: intent("powerServers"),
};
const replaceAction: OrderAction = {
  type: "replace",
  address: "0xa",
  request: "0xa@t1",
  state: "running",
  again: false,
  intent: intent("replaceServer"),
};
const wakeTried: PowerAttempt = { action: "wake", addresses: ["0xa"], sentAt: 1, failures: 2, retryAt: 50 };

interface Case {
  name: string;
  before: Partial<OrderKnowledge>;
  fact: OrderFact | Failed<OrderAction>;
  after: Partial<OrderKnowledge>;
}

const estimate = {
  hourlyCost: "0.10",
  perServerHourlyCost: "0.05",
  currency: "USD",
  count: 2,
  ...spec,
};
const terminal = failed(orderAction, apiError("terminal"));
const growRefused = failed(growAction, apiError("terminal"));
const replaceRefused = failed(replaceAction, apiError("terminal"));

const cases: Case[] = [
  {
    name: "an estimate is kept with its key",
    before: {},
    fact: { type: "estimated", estimate: { idempotencyKey: "e1", estimate } },
    after: { estimate: { idempotencyKey: "e1", estimate } },
  },
  {
    name: "the order followed replaces what was known, its due time set (not the earliest)",
    before: { order: order("old"), gone: true, servers: [server("0xa")], orderDueAt: 10, readGeneration: 1 },
    fact: { type: "following", order: order("ord_1", "pending"), generation: 3, dueAt: 500 },
    after: {
      order: order("ord_1", "pending"),
      gone: false,
      servers: undefined,
      orderDueAt: 500,
      readGeneration: 3,
    },
  },
  {
    name: "servers asked to deprovision are deprovisioning, the others as they were",
    before: { servers: [server("0xa"), server("0xb")] },
    fact: { type: "passing", addresses: ["0xb"], state: "deprovisioning" },
    after: { servers: [server("0xa"), server("0xb", "deprovisioning")] },
  },
  {
    name: "servers not listed yet stay unlisted",
    before: { servers: undefined },
    fact: { type: "passing", addresses: ["0xa"], state: "waking" },
    after: { servers: undefined },
  },
  {
    name: "a growth order is recorded once (newest kept) and its candidates are settled",
    before: { growthOrders: [order("g1", "pending"), order("g2")], growthCandidates: [order("g1")] },
    fact: { type: "grown", order: order("g1") },
    after: { growthOrders: [order("g2"), order("g1")], growthCandidates: undefined },
  },
  {
    name: "a growth order still in flight keeps the servers listed",
    before: { servers: [server("0xa")] },
    fact: { type: "grown", order: order("g3", "pending") },
    after: { growthOrders: [order("g3", "pending")] },
  },
  {
    name: "a growth order already settled has its servers listed again",
    before: { servers: [server("0xa")] },
    fact: { type: "grown", order: order("g3") },
    after: { growthOrders: [order("g3")], servers: undefined },
  },
  {
    name: "a replacement order is recorded once",
    before: { replacementOrders: [order("r1", "pending")] },
    fact: { type: "replacement", order: order("r2") },
    after: { replacementOrders: [order("r1", "pending"), order("r2")] },
  },
  {
    name: "a power call again after failed ones keeps the count, the retry cleared",
    before: { power: wakeTried },
    fact: { type: "powerSent", action: "wake", addresses: ["0xa", "0xb"], sentAt: 90 },
    after: {
      power: { action: "wake", addresses: ["0xa", "0xb"], sentAt: 90, failures: 2, retryAt: undefined },
    },
  },
  {
    name: "the other power call starts its count afresh",
    before: { power: wakeTried },
    fact: { type: "powerSent", action: "hibernate", addresses: ["0xa"], sentAt: 90 },
    after: {
      power: { action: "hibernate", addresses: ["0xa"], sentAt: 90, failures: 0, retryAt: undefined },
    },
  },
  {
    name: "a due time is set when none was",
    before: { orderDueAt: undefined },
    fact: { type: "due", at: 200 },
    after: { orderDueAt: 200 },
  },
  {
    name: "an earlier due time wins",
    before: { orderDueAt: 300 },
    fact: { type: "due", at: 200 },
    after: { orderDueAt: 200 },
  },
  {
    name: "a later due time does not postpone",
    before: { orderDueAt: 100 },
    fact: { type: "due", at: 200 },
    after: { orderDueAt: 100 },
  },
  {
    name: "the service's refusal of the order: refused, nothing placed",
    before: {},
    fact: terminal,
    after: { refused: terminal.failure },
  },
  {
    name: "the service's refusal of a growth order: refused",
    before: {},
    fact: growRefused,
    after: { refused: growRefused.failure },
  },
  {
    name: "an order call with an unknown outcome is not a refusal",
    before: {},
    fact: failed(orderAction, apiError("uncertain")),
    after: { refused: undefined },
  },
  {
    name: "an order lost on the network is not a refusal",
    before: {},
    fact: failed(
      orderAction,
      new HostingNetworkError({
        code: "connection_lost",
        kind: "uncertain",
        operation: "orderServers",
        message: "reset",
        sent: true,
      }),
    ),
    after: { refused: undefined },
  },
  {
    name: "an answer in an unexpected shape is not a refusal (the service may have ordered)",
    before: {},
    fact: failed(orderAction, new HostingResponseInvalidError({ operation: "orderServers", issues: [] })),
    after: { refused: undefined },
  },
  {
    name: "the service's refusal of a replace call: replaceRefused, no order refused",
    before: {},
    fact: replaceRefused,
    after: { replaceRefused: replaceRefused.failure, refused: undefined },
  },
  {
    name: "a replace call with an unknown outcome is not a refusal",
    before: {},
    fact: failed(replaceAction, apiError("uncertain")),
    after: { replaceRefused: undefined },
  },
  {
    name: "a refused power call refuses no order",
    before: {},
    fact: failed(powerAction, apiError("terminal")),
    after: { refused: undefined },
  },
];

describe("learnOrder", () => {
  it.each(cases)("$name", ({ before, fact, after }) => {
    const start = knowledge(before);
    const copy = structuredClone(start);
    expect(learnOrder(start, fact)).toEqual(knowledge({ ...before, ...after }));
    // Pure: the knowledge it started from is as it was.
    expect(start).toEqual(copy);
  });
});
