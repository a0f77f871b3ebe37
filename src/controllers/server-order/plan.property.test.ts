import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { finalizer } from "../../api/meta.ts";
import { type ServerOrder, serverOrderKind, serverOrderSchema } from "../../api/server-order.ts";
import type { Me, Order, Server } from "../../hosting/index.ts";
import { planFor } from "../skeleton/cleanup.ts";
import { specArbitrary } from "../skeleton/spec-arbitrary.test-support.ts";
import type { Catalog } from "./catalog.ts";
import type { OrderObserved } from "./memory.ts";
import { orderPlans } from "./plan.ts";

// Property tests (issue "Never wedge"): for any ServerOrder spec the CRD schema accepts and any
// state the service may report, plan never throws, plans a bounded list of actions, and never
// plans an order once an order that did not fail is recorded or known, nor while an earlier order
// call may have placed one.

const now = new Date("2030-01-01T00:10:00Z");
const placement = {
  csp: "native",
  region: "eu-central",
  zone: "eu-central-1a",
  instanceType: "native.small",
};

const catalog: Catalog = {
  regions: [{ id: "eu-central", name: "Frankfurt", csps: ["native"] }],
  zones: [{ id: "eu-central-1a", regionId: "eu-central", available: true }],
  instanceTypes: [
    {
      id: "native.small",
      csp: "native",
      cpu: 2,
      memoryMb: 4096,
      gpu: 0,
      hourlyPrice: "0.0520",
      currency: "USD",
    },
  ],
};

const me: Me = {
  user: { id: "u1", email: "u@example.test" },
  apiKey: { id: "k1", scopes: ["*"], projectIds: [], expiresAt: null },
  oauthClient: null,
};

const order = (id: string, state: string): Order => ({
  id,
  state,
  ...placement,
  count: 1,
  gridIds: [],
  servers: ["0xa"],
  error: null,
  pollAfterSec: null,
  createdAt: "2030-01-01T00:09:00Z",
});

const server = (state: string): Server => ({
  address: "0xa",
  orderId: "ord_1",
  gridIds: [],
  state,
  ...placement,
  hourlyCost: "0.0520",
  createdAt: "2030-01-01T00:09:00Z",
});

const orderState = fc.constantFrom(
  "pending",
  "processing",
  "completed",
  "failed",
  "partially_failed",
  "odd_new",
);

const caseArbitrary = fc.record({
  spec: specArbitrary(serverOrderKind),
  inCatalog: fc.boolean(),
  deleting: fc.boolean(),
  finalizer: fc.boolean(),
  recordedOrder: fc.boolean(),
  // A real order call was about to be sent (status.phase Ordering) when the last reconcile ended.
  marker: fc.option(fc.constantFrom("2030-01-01T00:09:50Z", "2030-01-01T00:00:00Z"), { nil: undefined }),
  estimate: fc.constantFrom("none", "matching", "stale"),
  known: fc.option(orderState, { nil: undefined }),
  gone: fc.boolean(),
  candidates: fc.option(fc.array(orderState, { maxLength: 2 }), { nil: undefined }),
  servers: fc.option(
    fc.array(fc.constantFrom("running", "provisioning", "failed", "hibernated"), { maxLength: 2 }),
    {
      nil: undefined,
    },
  ),
  refused: fc.boolean(),
});

type Case = typeof caseArbitrary extends fc.Arbitrary<infer T> ? T : never;

function build(c: Case): { serverOrder: ServerOrder; observed: OrderObserved } | undefined {
  const parsed = serverOrderSchema.safeParse({
    apiVersion: "berth.dev/v1alpha1",
    kind: "ServerOrder",
    metadata: {
      name: "batch",
      namespace: "team",
      uid: "uid-1",
      generation: 2,
      finalizers: c.finalizer ? [finalizer] : [],
      creationTimestamp: "2030-01-01T00:00:00Z",
      ...(c.deleting ? { deletionTimestamp: "2030-01-01T00:09:59Z" } : {}),
    },
    spec: c.inCatalog ? { ...c.spec, ...placement } : c.spec,
    status: {
      ...(c.recordedOrder ? { orderId: "ord_1" } : {}),
      ...(c.marker === undefined
        ? {}
        : {
            phase: "Ordering",
            conditions: [
              {
                type: "Ordered",
                status: "Unknown",
                reason: "Progressing",
                message: "placing",
                lastTransitionTime: c.marker,
                observedGeneration: 2,
              },
            ],
          }),
    },
  });
  if (!parsed.success) return undefined;
  const serverOrder = parsed.data;
  const observed: OrderObserved = {
    problem: undefined,
    me,
    grids: { ok: true, gridIds: [] },
    catalog,
    estimate: undefined,
    order: c.known === undefined ? undefined : order("ord_1", c.known),
    gone: c.gone,
    servers: c.servers?.map(server),
    candidates: c.candidates?.map((state, i) => order(`ord_c${i}`, state)),
    refused: c.refused
      ? {
          stalled: true,
          reason: "InsufficientBalance",
          message: "placing the order failed: the account balance is used up; add credits",
          requestId: "req_2",
          uncertain: false,
          refreshIdentity: false,
          retryAfterMs: undefined,
        }
      : undefined,
    requestId: "req_1",
  };
  if (c.estimate !== "none") observed.estimate = estimateFor(serverOrder, observed, c.estimate === "stale");
  return { serverOrder, observed };
}

/** The estimate the service would answer to the plan's own dry run (or one under another key). */
function estimateFor(serverOrder: ServerOrder, observed: OrderObserved, stale: boolean) {
  const ask = planFor(orderPlans, serverOrder, observed, now).actions.find((a) => a.type === "estimate");
  if (ask?.type !== "estimate") return undefined;
  return {
    idempotencyKey: stale ? "estimate.older" : ask.idempotencyKey,
    estimate: {
      hourlyCost: "0.0520",
      perServerHourlyCost: "0.0520",
      currency: "USD",
      count: ask.input.count,
      csp: ask.input.csp ?? "native",
      region: ask.input.region,
      zone: ask.input.zone,
      instanceType: ask.input.instanceType,
    },
  };
}

describe("planServerOrder properties", () => {
  it("never throws, plans at most a handful of actions, and never orders a second time", () => {
    fc.assert(
      fc.property(caseArbitrary, (c) => {
        const built = build(c);
        fc.pre(built !== undefined);
        if (built === undefined) return;
        const { serverOrder, observed } = built;
        const result = planFor(orderPlans, serverOrder, observed, now);
        expect(result.actions.length).toBeLessThanOrEqual(6);
        const orders = result.actions.filter((a) => a.type === "order");
        expect(orders.length).toBeLessThanOrEqual(1);
        // A recorded or known order is never followed by another, unless it failed (no servers: a changed
        // spec may order again).
        const placed = serverOrder.status?.orderId !== undefined || observed.order !== undefined;
        if (placed && observed.order?.state !== "failed") expect(orders).toEqual([]);
        // An earlier call may have placed an order: never a new one before looking, nor past what it found.
        const ordering = serverOrder.status?.phase === "Ordering" && !observed.refused;
        if (ordering && (observed.candidates ?? []).length !== 0) expect(orders).toEqual([]);
        if (!serverOrder.spec.approved) expect(orders).toEqual([]);
      }),
      { numRuns: 1000, seed: 20304 },
    );
  });
});
