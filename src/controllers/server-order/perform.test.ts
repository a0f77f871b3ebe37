import { describe, expect, it } from "vitest";
import { finalizer } from "../../api/meta.ts";
import { serverOrderSchema } from "../../api/server-order.ts";
import {
  HostingApiError,
  type HostingClient,
  type Me,
  type Order,
  type ProvisionInput,
  type WithMetadata,
} from "../../hosting/index.ts";
import type { KubeClient, KubeObject } from "../../runtime/index.ts";
import type { ControllerDeps } from "../shared/deps.ts";
import type { ObjectFact } from "../shared/kind.ts";
import { newOrderMemory, type OrderKnowledge } from "./observed.ts";
import { type OrderFact, performServerOrder } from "./perform.ts";
import type { OrderAction } from "./plan-common.ts";

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

/** RFC 7386 applied to a plain object: null removes, objects merge, the rest replaces. */
function applyPatch(target: Json, patch: Json): Json {
  const out: Json = { ...target };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else if (typeof value === "object" && !Array.isArray(value) && typeof out[key] === "object")
      out[key] = applyPatch(out[key] as Json, value as Json);
    else out[key] = value;
  }
  return out;
}

/** The calls in order, Kubernetes and service alike, and what each status write left. */
function fakes(orderServers: (input: ProvisionInput, key: string) => WithMetadata<Order>) {
  const log: string[] = [];
  let stored: KubeObject = {
    apiVersion: "berth.dev/v1alpha1",
    kind: "ServerOrder",
    metadata: { name: "batch", namespace: "team", uid: "uid-1", generation: 1, resourceVersion: "1" },
    spec: { ...input, approved: true, maxHourlyCost: "0.20" },
    status: { observedGeneration: 1 },
  };
  stored.metadata.finalizers = [finalizer];
  const kube = {
    async call(method: string, path: string, options: { body?: unknown } = {}) {
      if (method !== "PATCH" || !path.endsWith("/status")) throw new Error(`unexpected ${method} ${path}`);
      const { status } = options.body as { status: Json };
      const version = String(Number(stored.metadata.resourceVersion) + 1);
      stored = {
        ...stored,
        metadata: { ...stored.metadata, resourceVersion: version },
        status: applyPatch((stored.status ?? {}) as Json, status),
      };
      log.push(`status ${JSON.stringify(status)}`);
      return structuredClone(stored);
    },
  };
  const client = {
    async orderServers(asked: ProvisionInput, options: { idempotencyKey: string }) {
      log.push(`orderServers ${options.idempotencyKey}`);
      return orderServers(asked, options.idempotencyKey);
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

const marker = {
  observedGeneration: 1,
  phase: "Ordering",
  estimate: { hourlyCost: "0.10", currency: "USD" },
};
const orderAction: OrderAction = { type: "order", input, idempotencyKey: "order-key", marker };
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

describe("performServerOrder: order", () => {
  it("writes the marker, yields it, then orders under the plan's key and records the order at once", async () => {
    const { log, context } = fakes(() => placed);
    const { seen, error } = await collect(performServerOrder(orderAction, context, polls));
    expect(error).toBeUndefined();
    expect(log).toEqual([
      'status {"phase":"Ordering","estimate":{"hourlyCost":"0.10","currency":"USD"}}',
      "orderServers order-key",
      "event Normal Ordered",
      'status {"phase":"Pending","orderId":"ord_1"}',
    ]);
    expect(seen.map((f) => f.type)).toEqual(["written", "following", "answered", "written"]);
    const [marked, following, answered, recorded] = seen;
    expect(marked).toMatchObject({ type: "written", object: { status: marker } });
    expect(following).toEqual({
      type: "following",
      order: placed,
      generation: 1,
      dueAt: Date.parse("2030-01-01T00:10:05Z"),
    });
    expect(answered).toEqual({ type: "answered", requestId: "req_9" });
    expect(recorded).toMatchObject({
      type: "written",
      object: { status: { ...marker, phase: "Pending", orderId: "ord_1" } },
    });
  });

  it("keeps the marker's write when the order call fails", async () => {
    const { log, context } = fakes(() => {
      throw refusal();
    });
    const { seen, error } = await collect(performServerOrder(orderAction, context, polls));
    expect(error).toBeInstanceOf(HostingApiError);
    expect(log).toEqual([
      'status {"phase":"Ordering","estimate":{"hourlyCost":"0.10","currency":"USD"}}',
      "orderServers order-key",
    ]);
    expect(seen).toEqual([{ type: "written", object: expect.objectContaining({ status: marker }) }]);
  });
});

describe("performServerOrder: growOrder", () => {
  const growing = { target: 4, count: 2, since: "2030-01-01T00:10:00Z" };
  const grow: OrderAction = { type: "growOrder", input, idempotencyKey: "grow-key", marker: growing };

  it("on the service's refusal removes the marker and yields both writes before the error", async () => {
    const { log, context } = fakes(() => {
      throw refusal();
    });
    const { seen, error } = await collect(performServerOrder(grow, context, polls));
    expect(error).toBeInstanceOf(HostingApiError);
    expect(log).toEqual([
      `status {"growing":${JSON.stringify(growing)}}`,
      "orderServers grow-key",
      'status {"growing":null}',
    ]);
    expect(seen).toEqual([
      { type: "written", object: expect.objectContaining({ status: { observedGeneration: 1, growing } }) },
      { type: "written", object: expect.objectContaining({ status: { observedGeneration: 1 } }) },
    ]);
  });
});
