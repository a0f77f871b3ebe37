import { describe, expect, it } from "vitest";
import { getCondition } from "../../api/conditions.ts";
import { finalizer } from "../../api/meta.ts";
import type { ManagementPolicy } from "../../api/policies.ts";
import { type ServerOrder, serverOrderSchema } from "../../api/server-order.ts";
import { planFor } from "../skeleton/cleanup.ts";
import { gatePlan } from "../skeleton/policies.ts";
import { orderChanges } from "./actions.ts";
import { me, now, observed, order, placement, server } from "./builders.test-support.ts";
import type { OrderObserved } from "./memory.ts";
import { doingForOrder } from "./perform.ts";
import { orderPlans } from "./plan.ts";

// A ServerOrder adopting an existing order by spec.orderId, and what policies that hold calls back
// ask of the key: only the scopes of the calls that are sent.

const placed = placement;
function serverOrder(spec: Record<string, unknown> = {}): ServerOrder {
  return serverOrderSchema.parse({
    apiVersion: "berth.dev/v1alpha1",
    kind: "ServerOrder",
    metadata: { name: "batch", namespace: "team", uid: "uid-1", generation: 1, finalizers: [finalizer] },
    spec: { ...placed, count: 2, ...spec },
  });
}

const readOnly = me(["projects:read", "apps:read", "pools:read"]);

const delivered = { order: order(), servers: [server("0xa"), server("0xb")] };
const observe: ManagementPolicy[] = ["Observe"];

describe("ServerOrder: adopting spec.orderId, and the scopes of calls policies hold back", () => {
  it.each([
    [
      "adopts the order spec.orderId names once read: Ready, no order placed",
      { orderId: "ord_1" },
      delivered,
      { actions: [], ready: "True", stalled: false },
    ],
    [
      "reads the adopted order first: no dry run, no order",
      { orderId: "ord_1" },
      {},
      { actions: [], ready: "Unknown", stalled: false },
    ],
    [
      "an adopted order the service doesn't know is ExternalNotFound, never ordered",
      { orderId: "ord_1" },
      { gone: true },
      { actions: [], ready: "False", reason: "ExternalNotFound", stalled: true },
    ],
    [
      "an adopted order that failed is reported, not ordered again, even when the spec differs",
      { orderId: "ord_1", zone: "eu-central-1b" },
      { order: order({ state: "failed", error: { code: "no_capacity", message: "none" } }) },
      { actions: [], ready: "False", stalled: true },
    ],
    [
      "[Observe] with a read-only key: a higher count is a dry run toward an update, not MissingScopes",
      { orderId: "ord_1", count: 3, managementPolicies: observe },
      { ...delivered, me: readOnly },
      { actions: ["estimate"], stalled: false },
    ],
    [
      "[Observe] with a read-only key: a lower count is a shrink to hold back, not MissingScopes",
      { orderId: "ord_1", count: 1, managementPolicies: observe },
      { ...delivered, me: readOnly },
      { actions: ["shrink"], stalled: false },
    ],
    [
      "[Observe] with a read-only key: spec.power is a power call to hold back, not MissingScopes",
      { orderId: "ord_1", power: "Hibernated", managementPolicies: observe },
      { ...delivered, me: readOnly },
      { actions: ["power"], stalled: false },
    ],
    [
      "[Observe] with a read-only key and no order: a dry run toward a create, not MissingScopes",
      { managementPolicies: observe },
      { me: readOnly },
      { actions: ["estimate"], stalled: false },
    ],
    [
      '["*"] with a read-only key and no order: Stalled MissingScopes before any call',
      {},
      { me: readOnly },
      { actions: [], ready: "False", reason: "MissingScopes", stalled: true },
    ],
    [
      '["*"] with a read-only key: a higher count is Stalled MissingScopes',
      { orderId: "ord_1", count: 3 },
      { ...delivered, me: readOnly },
      { actions: [], ready: "False", reason: "MissingScopes", stalled: true },
    ],
    [
      "[Observe]: a field fixed once ordered that differs is DriftNotReverted, not Stalled",
      { orderId: "ord_1", zone: "eu-central-1b", managementPolicies: observe },
      delivered,
      { actions: [], ready: "False", reason: "DriftNotReverted", stalled: false },
    ],
    [
      '["*"]: a field fixed once ordered that differs is Stalled ImmutableAfterOrder',
      { orderId: "ord_1", zone: "eu-central-1b" },
      delivered,
      { actions: [], ready: "False", reason: "ImmutableAfterOrder", stalled: true },
    ],
  ] as const)("%s", (_name, spec, seen, expected) => {
    const result = planFor(orderPlans, serverOrder(spec), observed(seen), now);
    expect(result.actions.map((a) => a.type)).toEqual(expected.actions);
    expect(result.stalled).toBe(expected.stalled);
    const ready = getCondition(result.status.conditions, "Ready");
    if ("ready" in expected) expect(ready?.status).toBe(expected.ready);
    if ("reason" in expected)
      expect(ready?.reason ?? getCondition(result.status.conditions, "Stalled")?.reason).toBe(
        expected.reason,
      );
  });

  it("records the adopted order's ID and says it was adopted", () => {
    const result = planFor(orderPlans, serverOrder({ orderId: "ord_1" }), observed(delivered), now);
    expect(result.status.orderId).toBe("ord_1");
    expect(getCondition(result.status.conditions, "Ordered")?.message).toContain("adopted (spec.orderId)");
  });

  it("names the fields that differ when it reports instead of stalling", () => {
    const spec = { orderId: "ord_1", zone: "eu-central-1b", managementPolicies: observe };
    const result = planFor(orderPlans, serverOrder(spec), observed(delivered), now);
    const ready = getCondition(result.status.conditions, "Ready");
    expect(ready?.message).toContain("(zone differs)");
    expect(getCondition(result.status.conditions, "Stalled")).toBeUndefined();
    expect(getCondition(result.status.conditions, "Reconciling")).toBeUndefined();
  });
});

describe("ServerOrder through the skeleton's gate", () => {
  const judging = { changes: orderChanges, doing: doingForOrder };
  const gated = (spec: Record<string, unknown>, seen: Partial<OrderObserved>, paused?: "namespace") => {
    const resource = serverOrder(spec);
    const plan = planFor(orderPlans, resource, observed(seen), now);
    const policies = resource.spec.managementPolicies ?? ["*"];
    return gatePlan(
      plan,
      judging,
      { policies, deletionPolicy: "Delete", paused },
      { generation: 1, now, deleting: false },
    );
  };

  it("[Observe] holds the dry run for a higher count with the growth order: DriftNotReverted naming it", () => {
    const { plan, change } = gated({ orderId: "ord_1", count: 3, managementPolicies: observe }, delivered);
    expect(plan.actions).toEqual([]);
    expect(change?.set[0]?.reason).toBe("DriftNotReverted");
    expect(change?.set[0]?.message).toContain("spec.count");
  });

  it("[Observe] without an order holds the dry run with the order: ExternalNotFound, no call", () => {
    const { plan, change } = gated({ managementPolicies: observe }, {});
    expect(plan.actions).toEqual([]);
    expect(change?.set[0]?.reason).toBe("ExternalNotFound");
  });

  it("a pause holds an approved order's dry run and the order alike", () => {
    const { plan, change } = gated({ approved: true, maxHourlyCost: "1" }, {}, "namespace");
    expect(plan.actions).toEqual([]);
    expect(change?.set[0]?.reason).toBe("Paused");
  });

  it('["*"] lets the dry run through', () => {
    expect(gated({}, {}).plan.actions.map((a) => a.type)).toEqual(["estimate"]);
  });
});
