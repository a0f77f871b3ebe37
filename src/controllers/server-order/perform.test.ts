import { describe, expect, it } from "vitest";
import { finalizer } from "../../api/meta.ts";
import { serverOrderSchema } from "../../api/server-order.ts";
import {
  HostingApiError,
  type HostingClient,
  type Me,
  type Order,
  type ProvisionInput,
  type Server,
  type WithMetadata,
} from "../../hosting/index.ts";
import type { KubeClient, KubeObject } from "../../runtime/index.ts";
import type { ControllerDeps } from "../service/deps.ts";
import type { IntentCall } from "../skeleton/intents.ts";
import type { ObjectFact } from "../skeleton/kind.ts";
import type { OrderAction, OrderFact } from "./actions.ts";
import { newOrderMemory, type OrderKnowledge } from "./memory.ts";
import { performServerOrder } from "./perform.ts";

const polls = { orderMs: 4000, deprovisionMs: 2000, powerMs: 2000 };
const input: ProvisionInput = {
  csp: "native",
  region: "eu-central",
  zone: "eu-central-1a",
  instanceType: "native.small",
  count: 2,
};
const me: Me = {
  user: { id: "u1", email: "u@example.test" },
  apiKey: { id: "k1", scopes: ["pools:write", "compute:spend"], projectIds: [], expiresAt: null },
  oauthClient: null,
};
const refusal = () =>
  new HostingApiError({
    code: "insufficient_balance",
    kind: "terminal",
    operation: "orderServers",
    message: "no credit",
    status: 402,
  });

type Json = Record<string, unknown>;

/** The calls in order, Kubernetes and service alike: perform must make no status write of its own. */
function fakes(
  orderServers: (input: ProvisionInput, key: string) => WithMetadata<Order>,
  status: Json = { observedGeneration: 1 },
) {
  const log: string[] = [];
  const stored: KubeObject = {
    apiVersion: "berth.dev/v1alpha1",
    kind: "ServerOrder",
    metadata: {
      name: "batch",
      namespace: "team",
      uid: "uid-1",
      generation: 1,
      resourceVersion: "1",
      finalizers: [finalizer],
    },
    spec: { ...input, approved: true, maxHourlyCost: "0.20" },
    status,
  };
  const kube = {
    async call(method: string, path: string) {
      log.push(`kube ${method} ${path}`);
      throw new Error(`unexpected ${method} ${path}`);
    },
  };
  const client = {
    async orderServers(asked: ProvisionInput, options: { idempotencyKey: string }) {
      log.push(`orderServers ${options.idempotencyKey}`);
      return orderServers(asked, options.idempotencyKey);
    },
    async deprovisionServers(asked: { addresses: string[] }) {
      log.push(`deprovisionServers ${asked.addresses.join(",")}`);
      return { requestId: "req_d" };
    },
    async powerServers(asked: { addresses: string[]; action: string }) {
      log.push(`powerServers ${asked.action} ${asked.addresses.join(",")}`);
      return { requestId: "req_p" };
    },
    async replaceServer(address: string, _: unknown, options: { idempotencyKey: string }) {
      log.push(`replaceServer ${address} ${options.idempotencyKey}`);
      return { order: replacementOrder, $metadata: { ...placed.$metadata, requestId: "req_r" } };
    },
  };
  const deps = {
    kube: kube as unknown as KubeClient,
    recorder: {
      record: (_: KubeObject, type: string, reason: string) => log.push(`event ${type} ${reason}`),
    },
    now: () => Date.parse("2030-01-01T00:10:00Z"),
    random: () => 0.5,
    settings: { driftIntervalMs: 600_000 },
  } as unknown as ControllerDeps;
  const object = structuredClone(stored);
  const knowledge: OrderKnowledge = {
    ...newOrderMemory(),
    problem: undefined,
    me,
    grids: { ok: true, gridIds: [] },
    catalog: undefined,
    candidates: undefined,
    refused: undefined,
    requestId: undefined,
    servers: [server("0xa"), server("0xb")],
  };
  const context = {
    deps,
    object,
    resource: serverOrderSchema.parse(object),
    knowledge,
    connection: { client: client as unknown as HostingClient, me },
  };
  return { log, context };
}

function server(address: string, state = "running"): Server {
  return { address, orderId: "ord_1", gridIds: [], state, ...input, createdAt: "2030-01-01T00:00:00Z" };
}

/** Every fact until the end or the throw. */
async function collect(facts: AsyncIterable<OrderFact | ObjectFact>) {
  const seen: (OrderFact | ObjectFact)[] = [];
  try {
    for await (const fact of facts) seen.push(fact);
  } catch (error) {
    return { seen, error };
  }
  return { seen, error: undefined };
}

/** An intent as a plan makes it (the skeleton records it before perform runs). */
const call = (operation: string, args: Record<string, unknown>): IntentCall => ({
  operation,
  input: args,
  attempt: 1,
  key: `${operation}-key`,
});

const orderAction: OrderAction = {
  type: "order",
  input,
  intent: call("orderServers", { request: input }),
  hourlyCost: "0.10",
};
const placed: WithMetadata<Order> = {
  id: "ord_1",
  state: "pending",
  ...input,
  gridIds: [],
  servers: [],
  error: null,
  pollAfterSec: 5,
  $metadata: { status: 201, requestId: "req_9", replayed: false, attempts: 1 },
};
const replacementOrder: Order = { ...placed, id: "ord_r", count: 1, pollAfterSec: 3 };

/** Perform writes nothing itself: no Kubernetes call (the skeleton writes status once). */
function expectNoStatusWrite(log: string[], _seen: (OrderFact | ObjectFact)[]) {
  expect(log.filter((line) => line.startsWith("kube "))).toEqual([]);
}

describe("performServerOrder: order", () => {
  it("orders under the intent's key and yields the order's ID as a recorded fact, writing nothing itself", async () => {
    const { log, context } = fakes(() => placed);
    const { seen, error } = await collect(performServerOrder(orderAction, context, polls));
    expect(error).toBeUndefined();
    expect(log).toEqual(["orderServers orderServers-key", "event Normal Ordered"]);
    expectNoStatusWrite(log, seen);
    expect(seen).toEqual([
      { type: "following", order: placed, generation: 1, dueAt: Date.parse("2030-01-01T00:10:05Z") },
      { type: "answered", requestId: "req_9" },
      { type: "recorded", status: { orderId: "ord_1", phase: "Pending" } },
    ]);
  });

  it("adopting an order a lost call placed records its ID without a call", async () => {
    const { log, context } = fakes(() => placed);
    const { seen } = await collect(performServerOrder({ type: "adopt", order: placed }, context, polls));
    expect(log).toEqual(["event Normal Adopted"]);
    expectNoStatusWrite(log, seen);
    expect(seen.at(-1)).toEqual({ type: "recorded", status: { orderId: "ord_1", phase: "Pending" } });
  });

  it("yields nothing when the order call fails: the skeleton ends or keeps the intent", async () => {
    const { log, context } = fakes(() => {
      throw refusal();
    });
    const { seen, error } = await collect(performServerOrder(orderAction, context, polls));
    expect(error).toBeInstanceOf(HostingApiError);
    expect(log).toEqual(["orderServers orderServers-key"]);
    expect(seen).toEqual([]);
  });
});

describe("performServerOrder: growOrder", () => {
  const grow: OrderAction = {
    type: "growOrder",
    input,
    target: 4,
    intent: call("growServers", { request: input, step: { after: "ord_1", target: 4 } }),
  };

  it("orders under the intent's key and records the growth order, writing nothing itself", async () => {
    const { log, context } = fakes(() => ({ ...placed, id: "ord_2" }), {
      orderId: "ord_1",
      growthOrders: [{ id: "ord_0", count: 1, generation: 1 }],
    });
    const { seen, error } = await collect(performServerOrder(grow, context, polls));
    expect(error).toBeUndefined();
    expect(log).toEqual(["orderServers growServers-key", "event Normal Ordered"]);
    expectNoStatusWrite(log, seen);
    expect(seen.map((f) => f.type)).toEqual(["answered", "grown", "due", "recorded"]);
    expect(seen.at(-1)).toEqual({
      type: "recorded",
      status: {
        growthOrders: [
          { id: "ord_0", count: 1, generation: 1 },
          { id: "ord_2", count: 2, generation: 1 },
        ],
        growing: undefined,
      },
    });
  });

  it("on the service's refusal yields nothing and throws: no marker to remove", async () => {
    const { log, context } = fakes(() => {
      throw refusal();
    });
    const { seen, error } = await collect(performServerOrder(grow, context, polls));
    expect(error).toBeInstanceOf(HostingApiError);
    expect(log).toEqual(["orderServers growServers-key"]);
    expect(seen).toEqual([]);
  });
});

describe("performServerOrder: shrink and power", () => {
  const shrink = (alreadyRecorded: boolean): OrderAction => ({
    type: "shrink",
    addresses: ["0xb"],
    alreadyRecorded,
    intent: call("shrinkServers", { addresses: ["0xb"] }),
  });

  it("deprovisions, then records the removed servers (not before the call)", async () => {
    const { log, context } = fakes(() => placed, { orderId: "ord_1", removedCount: 1, removing: ["0xc"] });
    const { seen, error } = await collect(performServerOrder(shrink(false), context, polls));
    expect(error).toBeUndefined();
    expect(log).toEqual(["deprovisionServers 0xb", "event Normal Deprovisioning"]);
    expectNoStatusWrite(log, seen);
    expect(seen).toContainEqual({ type: "recorded", status: { removing: ["0xc", "0xb"], removedCount: 2 } });
  });

  it("does not count servers already recorded again", async () => {
    const { log, context } = fakes(() => placed, { orderId: "ord_1", removedCount: 1, removing: ["0xb"] });
    const { seen } = await collect(performServerOrder(shrink(true), context, polls));
    expectNoStatusWrite(log, seen);
    expect(seen.filter((f) => f.type === "recorded")).toEqual([]);
  });

  it("a power call yields what it sent and records no status", async () => {
    const { log, context } = fakes(() => placed);
    const action: OrderAction = {
      type: "power",
      action: "hibernate",
      addresses: ["0xa"],
      intent: call("powerServers", { action: "hibernate", addresses: ["0xa"] }),
    };
    const { seen } = await collect(performServerOrder(action, context, polls));
    expect(log).toEqual(["powerServers hibernate 0xa", "event Normal Hibernating"]);
    expectNoStatusWrite(log, seen);
    expect(seen).toContainEqual({
      type: "powerSent",
      action: "hibernate",
      addresses: ["0xa"],
      sentAt: Date.parse("2030-01-01T00:10:00Z"),
    });
  });
});

describe("performServerOrder: replace", () => {
  const replace: OrderAction = {
    type: "replace",
    address: "0xa",
    request: "0xa@t1",
    state: "running",
    again: false,
    intent: call("replaceServer", { address: "0xa", token: "t1", request: "0xa@t1" }),
  };

  it("replaces under the intent's key and records the replacement and the Replaced condition", async () => {
    const { log, context } = fakes(() => placed, { orderId: "ord_1" });
    const { seen, error } = await collect(performServerOrder(replace, context, polls));
    expect(error).toBeUndefined();
    expect(log[0]).toBe("replaceServer 0xa replaceServer-key");
    expectNoStatusWrite(log, seen);
    expect(seen).toContainEqual({ type: "passing", addresses: ["0xa"], state: "retiring" });
    expect(seen).toContainEqual({ type: "replacement", order: replacementOrder });
    const recorded = seen.find((f) => f.type === "recorded");
    expect(recorded).toMatchObject({
      status: {
        replacements: [
          { address: "0xa", orderId: "ord_r", request: "0xa@t1", at: "2030-01-01T00:10:00.000Z" },
        ],
        conditions: [{ type: "Replaced", status: "True", reason: "Succeeded" }],
        replacing: undefined,
      },
    });
  });

  it("refusing a request is only an event: the plan's status holds the echo", async () => {
    const { log, context } = fakes(() => placed);
    const { seen } = await collect(
      performServerOrder({ type: "refuseReplace", message: "not ours" }, context, polls),
    );
    expect(log).toEqual(["event Warning ReplaceRefused"]);
    expect(seen).toEqual([]);
  });
});
