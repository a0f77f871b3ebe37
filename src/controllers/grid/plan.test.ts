import { describe, expect, it } from "vitest";
import { getCondition } from "../../api/conditions.ts";
import { type Grid, gridSchema } from "../../api/grid.ts";
import { finalizer } from "../../api/meta.ts";
import { canonicalJson, type Me, type Grid as ServiceGrid } from "../../hosting/index.ts";
import { stepsOf } from "../skeleton/cleanup.test-support.ts";
import { planFor } from "../skeleton/cleanup.ts";
import type { GridObserved } from "./memory.ts";
import { gridPlans, reaskGridIntent } from "./plan.ts";
import type { GridPlan } from "./plan-common.ts";

const gridId = "0b7c1f8e-3d2a-4c5b-9e6f-1a2b3c4d5e6f";
const otherId = "1b7c1f8e-3d2a-4c5b-9e6f-1a2b3c4d5e6f";
const now = new Date("2030-01-01T00:00:00Z");

function grid(
  spec: Record<string, unknown> = {},
  meta: Record<string, unknown> = {},
  status?: Record<string, unknown>,
): Grid {
  return gridSchema.parse({
    apiVersion: "berth.dev/v1alpha1",
    kind: "Grid",
    metadata: {
      name: "edge",
      namespace: "team",
      uid: "uid-1",
      generation: 2,
      finalizers: [finalizer],
      ...meta,
    },
    spec,
    ...(status === undefined ? {} : { status }),
  });
}

const me = (scopes: string[]): Me => ({
  user: { id: "u1", email: "u@example.test" },
  apiKey: { id: "k1", scopes, projectIds: [], expiresAt: null },
  oauthClient: null,
});

const serviceGrid = (id = gridId, name = "edge", description: string | null = null): ServiceGrid => ({
  id,
  name,
  description,
  createdAt: "2030-01-01T00:00:00Z",
});

function observed(overrides: Partial<GridObserved> = {}): GridObserved {
  return {
    problem: undefined,
    me: me(["pools:admin"]),
    grid: undefined,
    gone: false,
    clusterUsers: [],
    found: undefined,
    requestId: "req_1",
    ...overrides,
  };
}

const deleting = { deletionTimestamp: "2030-01-01T00:00:00Z" };

function summary(plan: GridPlan) {
  const ready = getCondition(plan.status.conditions, "Ready");
  const stalled = getCondition(plan.status.conditions, "Stalled");
  return {
    actions: stepsOf(plan),
    ready: ready?.status,
    reason: stalled?.status === "True" ? stalled.reason : ready?.reason,
  };
}

describe("a Grid's plan", () => {
  it.each<[string, Grid, Partial<GridObserved>, ReturnType<typeof summary>]>([
    [
      "creates the grid, adding the finalizer first",
      grid({}, { finalizers: [] }),
      {},
      { actions: ["addFinalizer", "create"], ready: "Unknown", reason: "Progressing" },
    ],
    [
      "refuses to create without pools:write, making no call",
      grid(),
      { me: me(["pools:read"]) },
      { actions: [], ready: "False", reason: "MissingScopes" },
    ],
    [
      "is Ready once the grid exists",
      grid({}, {}, { gridId }),
      { grid: serviceGrid() },
      { actions: [], ready: "True", reason: "Succeeded" },
    ],
    [
      "adopts spec.gridId once read, whatever the grid is named",
      grid({ gridId }),
      { grid: serviceGrid(gridId, "someone-elses") },
      { actions: [], ready: "True", reason: "Succeeded" },
    ],
    [
      "stalls when the grid to adopt does not exist",
      grid({ gridId }),
      { gone: true },
      { actions: [], ready: "False", reason: "ExternalNotFound" },
    ],
    [
      "stalls when the spec asks for a name the service can't give the grid",
      grid({ displayName: "renamed" }, {}, { gridId }),
      { grid: serviceGrid() },
      { actions: [], ready: "False", reason: "InvalidSpec" },
    ],
    [
      "adopted: a displayName the spec sets and the service can't give stalls InvalidSpec",
      grid({ gridId, displayName: "renamed" }),
      { grid: serviceGrid() },
      { actions: [], ready: "False", reason: "InvalidSpec" },
    ],
    [
      "[Observe]: a name that differs is reported (DriftNotReverted), not stalled",
      grid({ gridId, displayName: "renamed", managementPolicies: ["Observe"] }),
      { grid: serviceGrid() },
      { actions: [], ready: "False", reason: "DriftNotReverted" },
    ],
    [
      "[Observe]: a description that differs is reported (DriftNotReverted), not stalled",
      grid({ gridId, description: "new", managementPolicies: ["Observe"] }),
      { grid: serviceGrid() },
      { actions: [], ready: "False", reason: "DriftNotReverted" },
    ],
    [
      "[Observe] with a read-only key: a create to hold back, not MissingScopes",
      grid({ managementPolicies: ["Observe"] }),
      { me: me(["pools:read"]) },
      { actions: ["create"], ready: "Unknown", reason: "Progressing" },
    ],
    [
      "re-creates a grid that vanished at the service",
      grid({}, {}, { gridId }),
      { gone: true },
      { actions: ["create"], ready: "Unknown", reason: "Progressing" },
    ],
    [
      "adopts the one grid found after an uncertain create",
      grid(),
      { found: [serviceGrid()] },
      { actions: ["adopt"], ready: "Unknown", reason: "Progressing" },
    ],
    [
      "stalls when an uncertain create left several grids of its name",
      grid(),
      { found: [serviceGrid(), serviceGrid(otherId)] },
      { actions: [], ready: "False", reason: "DuplicateGrids" },
    ],
    [
      "calls nothing while suspended",
      grid({ suspend: true }, {}, { gridId }),
      {},
      { actions: [], ready: "False", reason: "Suspended" },
    ],
    [
      "reports a problem observe found",
      grid(),
      { problem: { stalled: true, reason: "CredentialsNotFound", message: "no Secret" } },
      { actions: [], ready: "False", reason: "CredentialsNotFound" },
    ],
    [
      "deletes the grid, then releases it",
      grid({}, deleting, { gridId }),
      {},
      { actions: ["delete", "removeFinalizer"], ready: "Unknown", reason: "Deleting" },
    ],
    [
      "waits for the ServerOrders that use the grid before deleting it",
      grid({}, deleting, { gridId }),
      { clusterUsers: ["ServerOrder team/gpu"] },
      { actions: [], ready: "Unknown", reason: "DependentsExist" },
    ],
    [
      "releases an orphaned grid without waiting for its ServerOrders",
      grid({ deletionPolicy: "Orphan" }, deleting, { gridId }),
      { clusterUsers: ["ServerOrder team/gpu"] },
      { actions: ["removeFinalizer"], ready: "Unknown", reason: "Deleting" },
    ],
    [
      "refuses to delete without pools:admin, keeping the finalizer",
      grid({}, deleting, { gridId }),
      { me: me(["pools:write"]) },
      { actions: [], ready: "False", reason: "MissingScopes" },
    ],
    [
      "only releases the grid under deletionPolicy Orphan",
      grid({ deletionPolicy: "Orphan" }, deleting, { gridId }),
      { me: undefined },
      { actions: ["removeFinalizer"], ready: "Unknown", reason: "Deleting" },
    ],
    [
      "releases a grid without an ID once a lookup found none a create may have made",
      grid({}, deleting),
      { found: [] },
      { actions: ["removeFinalizer"], ready: "Unknown", reason: "Deleting" },
    ],
    [
      "never releases a grid without an ID before a lookup ran (or when it failed)",
      grid({}, deleting),
      {},
      { actions: [], ready: "Unknown", reason: "Deleting" },
    ],
    [
      "deletes the grid a lookup found after an uncertain create, then lets go",
      grid({}, deleting),
      { found: [{ id: gridId, name: "g" }] },
      { actions: ["delete", "removeFinalizer"], ready: "Unknown", reason: "Deleting" },
    ],
    [
      "does nothing once the finalizer is gone",
      grid({}, { ...deleting, finalizers: [] }, { gridId }),
      {},
      { actions: [], ready: undefined, reason: undefined },
    ],
  ])("%s", (_name, object, overrides, expected) => {
    expect(summary(planFor(gridPlans, object, observed(overrides), now))).toEqual(expected);
  });

  it("derives the create key from the UID and the arguments, and a new one after the grid vanished", () => {
    const keyOf = (plan: GridPlan) => plan.actions.find((a) => a.type === "create");
    const first = keyOf(planFor(gridPlans, grid(), observed(), now));
    const again = keyOf(planFor(gridPlans, grid(), observed(), now));
    const vanished = keyOf(planFor(gridPlans, grid({}, {}, { gridId }), observed({ gone: true }), now));
    expect(first).toEqual(again);
    expect(first).toMatchObject({ body: { name: "edge" }, idempotencyKey: expect.stringMatching(/uid-1/) });
    expect(vanished).not.toEqual(first);
  });

  it("names the missing scope and the grid in the message", () => {
    const plan = planFor(
      gridPlans,
      grid({}, deleting, { gridId }),
      observed({ me: me(["pools:write"]) }),
      now,
    );
    expect(getCondition(plan.status.conditions, "Stalled")?.message).toMatch(
      new RegExp(`pools:admin.*delete grid ${gridId}`),
    );
  });

  it("records the grid ID, the request ID and the generation in status", () => {
    const plan = planFor(gridPlans, grid(), observed({ grid: serviceGrid(), requestId: "req_9" }), now);
    expect(plan.status).toMatchObject({ gridId, lastRequestId: "req_9", observedGeneration: 2 });
  });
});

describe("reaskGridIntent: a create sent again, identical, before a deletion releases", () => {
  const created = (from: Grid) => {
    const [create] = planFor(gridPlans, from, observed(), now).actions;
    if (create?.type !== "create") throw new Error(`planned ${create?.type}, not a create`);
    const { operation, key, input, attempt } = create.intent;
    const intent = { operation, key, input: canonicalJson(input), attempt, since: now.toISOString() };
    return { create, intent: { ...intent, state: "NotFound" as const } };
  };

  it("rebuilds the very request: the same key, body and intent", () => {
    const { create, intent } = created(grid({ description: "edge pool" }));
    expect(reaskGridIntent(intent, grid({ description: "edge pool" }))).toEqual(create);
  });

  it.each([
    ["the description changed since", grid({ description: "another" })],
    ["another UID (a restore)", grid({ description: "edge pool" }, { uid: "uid-2" })],
  ])("%s: the request as it was sent", (_, today) => {
    const { create, intent } = created(grid({ description: "edge pool" }));
    expect(reaskGridIntent(intent, today)).toEqual(create);
  });

  it("an intent of an earlier version (the name alone): asked again only when today's spec rebuilds its key", () => {
    const { create, intent } = created(grid({ description: "edge pool" }));
    const earlier = { ...intent, input: canonicalJson({ name: "edge" }) };
    expect(reaskGridIntent(earlier, grid({ description: "edge pool" }))).toMatchObject({
      body: create.body,
      idempotencyKey: intent.key,
    });
    expect(reaskGridIntent(earlier, grid({ description: "another" }))).toBeUndefined();
  });

  it("a create planned after one the lookup found no trace of is that create again, though the spec moved on", () => {
    const { create, intent } = created(grid({ description: "edge pool" }));
    const moved = grid({ description: "another" }, {}, { intents: [intent] });
    expect(planFor(gridPlans, moved, observed(), now).actions).toEqual([create]);
  });
});
