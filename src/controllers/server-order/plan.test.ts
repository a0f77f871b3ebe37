import { describe, expect, it } from "vitest";
import { type Condition, getCondition } from "../../api/conditions.ts";
import { finalizer } from "../../api/meta.ts";
import { type ServerOrder, serverOrderSchema } from "../../api/server-order.ts";
import type { Failure } from "../service/failure.ts";
import { stepsOf } from "../skeleton/cleanup.test-support.ts";
import { planFor } from "../skeleton/cleanup.ts";
import { type IntentCall, pendingRecord } from "../skeleton/intents.ts";
import type { OrderAction } from "./actions.ts";
import { me, now, observed, order, placement, server } from "./builders.test-support.ts";
import type { OrderObserved } from "./memory.ts";
import { orderPlans } from "./plan.ts";
import type { OrderPlan } from "./plan-common.ts";

const gridId = "0b7c1f8e-3d2a-4c5b-9e6f-1a2b3c4d5e6f";

const baseSpec = { ...placement, count: 2 };

function serverOrder(
  spec: Record<string, unknown> = {},
  status?: Record<string, unknown>,
  meta: Record<string, unknown> = {},
): ServerOrder {
  return serverOrderSchema.parse({
    apiVersion: "berth.dev/v1alpha1",
    kind: "ServerOrder",
    metadata: {
      name: "batch",
      namespace: "team",
      uid: "uid-1",
      generation: 1,
      finalizers: [finalizer],
      ...meta,
    },
    spec: { ...baseSpec, ...spec },
    ...(status === undefined ? {} : { status }),
  });
}

const approved = { approved: true, maxHourlyCost: "0.20" };

const plan = (object: ServerOrder, overrides: Partial<OrderObserved> = {}) =>
  planFor(orderPlans, object, observed(overrides), now);

/** The estimate the service would answer for `spec`, under the key the plan asks with. */
function estimated(object: ServerOrder, hourlyCost = "0.1040"): Partial<OrderObserved> {
  const ask = plan(object, { estimate: undefined, candidates: [] }).actions.find(
    (a) => a.type === "estimate",
  );
  if (ask?.type !== "estimate") throw new Error("the plan asked for no estimate");
  const { input } = ask;
  return {
    estimate: {
      idempotencyKey: ask.idempotencyKey,
      estimate: {
        hourlyCost,
        perServerHourlyCost: "0.0520",
        currency: "USD",
        count: input.count,
        csp: input.csp ?? "native",
        region: input.region,
        zone: input.zone,
        instanceType: input.instanceType,
      },
    },
  };
}

const marker = (at: string, generation = 1): Record<string, unknown> => ({
  phase: "Ordering",
  conditions: [
    {
      type: "Ordered",
      status: "Unknown",
      reason: "Progressing",
      message: "placing",
      lastTransitionTime: at,
      observedGeneration: generation,
    },
  ],
});

/** The intent of the plan's order action. */
function orderIntent(actions: OrderAction[]): IntentCall {
  const action = actions.find((a) => a.type === "order");
  if (action?.type !== "order") throw new Error("the plan placed no order");
  return action.intent;
}

const refusal: Failure = {
  stalled: true,
  reason: "InsufficientBalance",
  message: "placing the order failed: the account balance is used up; add credits (request req_2)",
  requestId: "req_2",
  uncertain: false,
  refreshIdentity: false,
  retryAfterMs: undefined,
};

function condition(result: OrderPlan, type: string): Condition | undefined {
  return getCondition(result.status.conditions, type);
}

function summary(result: OrderPlan) {
  const stalled = condition(result, "Stalled");
  const ready = condition(result, "Ready");
  return {
    actions: stepsOf(result),
    ready: ready?.status,
    reason: stalled?.status === "True" ? stalled.reason : ready?.reason,
    ordered: condition(result, "Ordered")?.status,
    phase: result.status.phase,
  };
}

const deleting = { deletionTimestamp: "2030-01-01T00:09:00Z" };
const placed = { orderId: "ord_1", phase: "Provisioned" };

describe("planServerOrder", () => {
  it.each<[string, () => OrderPlan, ReturnType<typeof summary>]>([
    [
      "asks for an estimate first, with the finalizer",
      () => plan(serverOrder({}, undefined, { finalizers: [] })),
      {
        actions: ["addFinalizer", "estimate"],
        ready: "Unknown",
        reason: "Progressing",
        ordered: undefined,
        phase: undefined,
      },
    ],
    [
      "waits for approval with the estimate, calling nothing more",
      () => plan(serverOrder(), estimated(serverOrder())),
      { actions: [], ready: "False", reason: "AwaitingApproval", ordered: "False", phase: "Estimated" },
    ],
    [
      "orders once approved and within maxHourlyCost",
      () => plan(serverOrder(approved), estimated(serverOrder(approved))),
      { actions: ["order"], ready: "Unknown", reason: "Progressing", ordered: "Unknown", phase: "Ordering" },
    ],
    [
      "accepts an estimate exactly at maxHourlyCost",
      () => plan(serverOrder({ ...approved, maxHourlyCost: "0.104" }), estimated(serverOrder(approved))),
      { actions: ["order"], ready: "Unknown", reason: "Progressing", ordered: "Unknown", phase: "Ordering" },
    ],
    [
      "refuses to order above maxHourlyCost",
      () => plan(serverOrder({ ...approved, maxHourlyCost: "0.10" }), estimated(serverOrder(approved))),
      { actions: [], ready: "False", reason: "OverBudget", ordered: "False", phase: "Estimated" },
    ],
    [
      "refuses without compute:spend, calling nothing",
      () => plan(serverOrder(approved), { me: me(["pools:write"]), catalog: undefined }),
      { actions: [], ready: "False", reason: "MissingScopes", ordered: undefined, phase: undefined },
    ],
    [
      "waits for a referenced Grid to get its ID",
      () =>
        plan(serverOrder({ ...approved, gridRefs: [{ name: "edge" }] }), {
          grids: {
            ok: false,
            problem: { stalled: false, reason: "GridNotReady", message: "waiting for Grid edge" },
          },
        }),
      { actions: [], ready: "Unknown", reason: "GridNotReady", ordered: undefined, phase: undefined },
    ],
    [
      "stalls on a value the catalog does not offer",
      () => plan(serverOrder({ zone: "us-east-1a" })),
      { actions: [], ready: "False", reason: "InvalidSpec", ordered: undefined, phase: undefined },
    ],
    [
      "shows the service's refusal of the order",
      () => plan(serverOrder(approved), { ...estimated(serverOrder(approved)), refused: refusal }),
      { actions: [], ready: "False", reason: "InsufficientBalance", ordered: "False", phase: "Failed" },
    ],
    [
      "looks for the order of an uncertain call before anything else",
      () => plan(serverOrder(approved, marker("2030-01-01T00:09:00Z")), estimated(serverOrder(approved))),
      { actions: [], ready: "Unknown", reason: "Progressing", ordered: "Unknown", phase: "Ordering" },
    ],
    [
      "adopts the one order an uncertain call placed",
      () =>
        plan(serverOrder(approved, marker("2030-01-01T00:09:00Z")), {
          candidates: [order({ state: "pending" })],
        }),
      { actions: ["adopt"], ready: "Unknown", reason: "Progressing", ordered: "Unknown", phase: "Ordering" },
    ],
    [
      "stalls when several orders could be the uncertain call's",
      () =>
        plan(serverOrder(approved, marker("2030-01-01T00:09:00Z")), {
          candidates: [order(), order({ id: "ord_2" })],
        }),
      { actions: [], ready: "False", reason: "OrderUncertain", ordered: "Unknown", phase: "Ordering" },
    ],
    [
      "orders again after an uncertain call placed nothing",
      () =>
        plan(serverOrder(approved, marker("2030-01-01T00:09:00Z")), {
          ...estimated(serverOrder(approved, marker("2030-01-01T00:09:00Z"))),
          candidates: [],
        }),
      { actions: ["order"], ready: "Unknown", reason: "Progressing", ordered: "Unknown", phase: "Ordering" },
    ],
    [
      "follows an order in flight",
      () => plan(serverOrder(approved, placed), { order: order({ state: "provisioning", pollAfterSec: 3 }) }),
      { actions: [], ready: "Unknown", reason: "Progressing", ordered: "True", phase: "Provisioning" },
    ],
    [
      "is Ready once the order's servers are listed",
      () => plan(serverOrder(approved, placed), { order: order(), servers: [server("0xa"), server("0xb")] }),
      { actions: [], ready: "True", reason: "Succeeded", ordered: "True", phase: "Provisioned" },
    ],
    [
      "stalls when delivered servers are no longer listed",
      () => plan(serverOrder(approved, placed), { order: order(), servers: [server("0xa")] }),
      { actions: [], ready: "False", reason: "ServersMissing", ordered: "True", phase: "Provisioned" },
    ],
    [
      "reports a zone changed after the order, ordering nothing",
      () =>
        plan(serverOrder({ ...approved, zone: "eu-central-1b" }, placed), {
          order: order(),
          servers: [server("0xa"), server("0xb")],
        }),
      { actions: [], ready: "False", reason: "ImmutableAfterOrder", ordered: "True", phase: "Provisioned" },
    ],
    [
      "reports a grid added after the order",
      () =>
        plan(serverOrder({ ...approved, gridIds: [gridId] }, placed), {
          grids: { ok: true, gridIds: [gridId] },
          order: order(),
          servers: [server("0xa"), server("0xb")],
        }),
      { actions: [], ready: "False", reason: "ImmutableAfterOrder", ordered: "True", phase: "Provisioned" },
    ],
    [
      "ignores approval and budget changes after the order",
      () =>
        plan(serverOrder({ approved: false, maxHourlyCost: "0.01" }, placed), {
          order: order(),
          servers: [server("0xa"), server("0xb")],
        }),
      { actions: [], ready: "True", reason: "Succeeded", ordered: "True", phase: "Provisioned" },
    ],
    [
      "stalls with the service's reason when the order failed",
      () =>
        plan(serverOrder(approved, placed), {
          order: order({
            state: "failed",
            servers: [],
            error: { code: "capacity_unavailable", message: "zone full" },
          }),
        }),
      { actions: [], ready: "False", reason: "CapacityUnavailable", ordered: "False", phase: "Failed" },
    ],
    [
      "orders anew after a failed order once the spec changed",
      () =>
        plan(serverOrder({ ...approved, zone: "eu-central-1b" }, placed), {
          order: order({
            state: "failed",
            servers: [],
            error: { code: "capacity_unavailable", message: "zone full" },
          }),
        }),
      // Approved: a fresh estimate for the new attempt comes right before the new order.
      {
        actions: ["estimate"],
        ready: "Unknown",
        reason: "Progressing",
        ordered: "Unknown",
        phase: "Estimated",
      },
    ],
    [
      "calls nothing while suspended",
      () => plan(serverOrder({ ...approved, suspend: true })),
      { actions: [], ready: "False", reason: "Suspended", ordered: undefined, phase: undefined },
    ],
  ])("%s", (_name, make, expected) => {
    expect(summary(make())).toEqual(expected);
  });

  it("names the bad value and lists the valid ones", () => {
    const result = plan(serverOrder({ zone: "eu-central-9z", instanceType: "native.huge" }));
    const message = condition(result, "Stalled")?.message ?? "";
    expect(message).toContain(
      'spec.zone "eu-central-9z" is not a zone of region eu-central (valid: eu-central-1a, eu-central-1b)',
    );
    expect(message).toContain(
      'spec.instanceType "native.huge" is not offered by csp native (valid: native.small)',
    );
  });

  it("requires a zone, listing the region's zones", () => {
    const message = condition(plan(serverOrder({ zone: undefined })), "Stalled")?.message ?? "";
    expect(message).toContain(
      "spec.zone is required by the service (zones of region eu-central: eu-central-1a, eu-central-1b)",
    );
  });

  it("names the field changed after the order", () => {
    const result = plan(serverOrder({ ...approved, zone: "eu-central-1b" }, placed), {
      order: order(),
      servers: [],
    });
    expect(condition(result, "Stalled")?.message).toMatch(
      /spec\.zone is eu-central-1b but order ord_1 has eu-central-1a/,
    );
  });

  it("puts the estimate in status", () => {
    const result = plan(serverOrder(), estimated(serverOrder()));
    expect(result.status.estimate).toEqual({ hourlyCost: "0.1040", currency: "USD" });
    expect(condition(result, "Ready")?.message).toMatch(
      /0\.1040 USD per hour for 2 × native\.small.*spec\.approved: true/,
    );
  });

  it("lists the servers and joins them to the resolved grids", () => {
    const object = serverOrder({ ...approved, gridRefs: [{ name: "edge" }] });
    const ask = plan(object, { grids: { ok: true, gridIds: [gridId] } }).actions[0];
    expect(ask).toMatchObject({
      type: "estimate",
      input: { gridIds: [gridId], zone: "eu-central-1a", count: 2 },
    });
    const done = plan(serverOrder(approved, placed), {
      order: order(),
      servers: [server("0xa"), server("0xb", "hibernated")],
    });
    expect(done.status.servers).toEqual([
      { address: "0xa", state: "running", power: "On" },
      { address: "0xb", state: "hibernated", power: "Hibernated" },
    ]);
  });
});

describe("idempotency keys", () => {
  const keyOf = (actions: OrderAction[], type: "estimate" | "order") => {
    const action = actions.find((a) => a.type === type);
    if (action?.type === "estimate") return action.idempotencyKey;
    return action?.type === "order" ? action.intent.key : undefined;
  };
  const object = serverOrder(approved);

  it("differ between the dry run and the real order", () => {
    const estimateKey = keyOf(plan(object).actions, "estimate");
    const orderKey = keyOf(plan(object, estimated(object)).actions, "order");
    expect(estimateKey).toMatch(/^estimateServers\.uid-1\./);
    expect(orderKey).toMatch(/^orderServers\.uid-1\./);
  });

  it("repeat the interrupted call's key, and change after a definite refusal", () => {
    const first = plan(object, estimated(object));
    const call = orderIntent(first.actions);
    const marked = first.status.conditions?.find((c) => c.type === "Ordered")?.lastTransitionTime ?? "";
    // The call's outcome was unknown and the lookup found no order (NotFound): the same key again.
    const notFound = { ...pendingRecord(call, undefined, now), state: "NotFound" as const };
    const retried = plan(
      serverOrder(approved, { ...marker(marked), intents: [notFound] }),
      estimated(object),
    );
    expect(keyOf(retried.actions, "order")).toBe(keyOf(first.actions, "order"));
    expect(orderIntent(retried.actions).attempt).toBe(1);
    // Still Pending (settled elsewhere), the plan would send the same key too: never a second order.
    const pending = pendingRecord(call, undefined, now);
    const again = plan(serverOrder(approved, { ...marker(marked), intents: [pending] }), estimated(object));
    expect(keyOf(again.actions, "order")).toBe(keyOf(first.actions, "order"));
    // The service refused it for certain: the next attempt gets a new key.
    const refused = { ...pendingRecord(call, undefined, now), state: "Refused" as const, message: "no" };
    const failed = serverOrder(approved, { phase: "Failed", intents: [refused] });
    const afterRefusal = plan(failed, estimated(failed));
    expect(orderIntent(afterRefusal.actions).attempt).toBe(2);
    expect(keyOf(afterRefusal.actions, "order")).toMatch(/^orderServers\.uid-1\./);
    expect(keyOf(afterRefusal.actions, "order")).not.toBe(keyOf(first.actions, "order"));
  });

  it("re-estimate right before the real order: the estimate shown for approval (replayable for 24 h) is never the one checked", () => {
    const unapproved = serverOrder({ maxHourlyCost: "0.20" });
    const shown = estimated(unapproved);
    const afterApproval = plan(serverOrder(approved), shown);
    expect(afterApproval.actions.map((a) => a.type)).toEqual(["estimate"]);
    expect(keyOf(afterApproval.actions, "estimate")).not.toBe(shown.estimate?.idempotencyKey);
  });

  it("refuse the order when the fresh estimate's currency differs from the approved one", () => {
    const object = serverOrder(approved, { estimate: { hourlyCost: "0.1040", currency: "EUR" } });
    const result = plan(object, estimated(object));
    expect(result.actions).toEqual([]);
    expect(condition(result, "Stalled")).toMatchObject({ status: "True", reason: "OverBudget" });
    expect(condition(result, "Stalled")?.message).toContain("now in USD");
  });

  it("carry the intent the skeleton records before the call: its input holds the request it orders", () => {
    const action = plan(object, estimated(object)).actions[0];
    if (action?.type !== "order") throw new Error("expected an order action");
    expect(action.intent).toMatchObject({
      operation: "orderServers",
      attempt: 1,
      input: { request: action.input },
    });
    expect(action.intent.key).toMatch(/^orderServers\.uid-1\./);
  });
});

describe("deletion", () => {
  const gone = (spec: Record<string, unknown> = {}, status: Record<string, unknown> = placed) =>
    serverOrder({ ...approved, ...spec }, status, deleting);

  it.each<[string, () => OrderPlan, string[], string | undefined]>([
    [
      "keeps the servers under Orphan",
      () => plan(gone({ deletionPolicy: "Orphan" }), { me: undefined }),
      ["removeFinalizer"],
      "Deleting",
    ],
    ["releases a ServerOrder that never ordered", () => plan(gone({}, {})), ["removeFinalizer"], "Deleting"],
    [
      "deprovisions the order's running servers",
      () => plan(gone(), { order: order(), servers: [server("0xa"), server("0xb", "hibernated")] }),
      ["deprovision"],
      "Deleting",
    ],
    [
      "waits for an order in flight to deliver its servers",
      () => plan(gone(), { order: order({ state: "pending", pollAfterSec: 4 }), servers: [] }),
      [],
      "Deleting",
    ],
    [
      "waits for the servers to finish deprovisioning",
      () => plan(gone(), { order: order(), servers: [server("0xa", "deprovisioning")] }),
      [],
      "Deleting",
    ],
    [
      "releases once no server is listed",
      () => plan(gone(), { order: order(), servers: [] }),
      ["removeFinalizer"],
      "Deleting",
    ],
    [
      "refuses without pools:write, keeping the finalizer",
      () => plan(gone(), { me: me(["pools:read"]), order: order(), servers: [server("0xa")] }),
      [],
      "MissingScopes",
    ],
    [
      "adopts the order an uncertain call placed, to deprovision it",
      () => plan(gone({}, marker("2030-01-01T00:09:00Z")), { candidates: [order()] }),
      ["adopt"],
      "Progressing",
    ],
  ])("%s", (_name, make, actions, reason) => {
    const result = make();
    expect(stepsOf(result)).toEqual(actions);
    const stalled = condition(result, "Stalled");
    expect(stalled?.status === "True" ? stalled.reason : condition(result, "Ready")?.reason).toBe(reason);
  });

  it("deprovisions only servers not already leaving, and polls their progress", () => {
    const result = plan(gone(), {
      order: order(),
      servers: [server("0xa"), server("0xb", "deprovisioning"), server("0xc", "hibernated")],
    });
    expect(result.actions).toEqual([{ type: "deprovision", orderId: "ord_1", addresses: ["0xa", "0xc"] }]);
    expect(result.poll).toBe("deprovisionMs");
  });
});

describe("planServerOrder never orders twice", () => {
  it("an order already answered wins over an older ordering marker, even when the lookup found nothing", () => {
    const object = serverOrder(approved, marker("2030-01-01T00:09:50Z"));
    const result = plan(object, { ...estimated(object), order: order({ state: "pending" }), candidates: [] });
    expect(result.actions.map((a) => a.type)).not.toContain("order");
    expect(result.status.orderId).toBe("ord_1");
  });
});
