import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { gridKind, gridSchema } from "../../api/grid.ts";
import { finalizer } from "../../api/meta.ts";
import type { Me, Grid as ServiceGrid } from "../../hosting/index.ts";
import { planFor } from "../skeleton/cleanup.ts";
import { specArbitrary } from "../skeleton/spec-arbitrary.test-support.ts";
import type { GridObserved } from "./memory.ts";
import { gridPlans } from "./plan.ts";

// Property tests (issue "Never wedge"): for any Grid spec the CRD schema accepts and any state the
// service may report, plan never throws, plans a bounded list of actions, and never plans a create
// for a Grid whose status holds a grid ID unless the service said it is gone, nor for an adopted one.

const gridId = "0b7c1f8e-3d2a-4c5b-9e6f-1a2b3c4d5e6f";
const now = new Date("2030-01-01T00:00:00Z");

const me = (scopes: string[]): Me => ({
  user: { id: "u1", email: "u@example.test" },
  apiKey: { id: "k1", scopes, projectIds: [], expiresAt: null },
  oauthClient: null,
});

const serviceGrid = (id: string, name: string): ServiceGrid => ({
  id,
  name,
  description: null,
  createdAt: "2030-01-01T00:00:00Z",
});

const caseArbitrary = fc.record({
  spec: specArbitrary(gridKind),
  recorded: fc.boolean(),
  deleting: fc.boolean(),
  finalizer: fc.boolean(),
  external: fc.constantFrom("unknown", "known", "renamed", "gone"),
  scopes: fc.constantFrom(["*"], ["pools:admin"], ["pools:read"], []),
  clusterUsers: fc.array(fc.constantFrom("ServerOrder team/batch", "ServerOrder team/gpu"), { maxLength: 2 }),
  found: fc.option(fc.array(fc.constantFrom("edge", "other"), { maxLength: 3 }), { nil: undefined }),
  refusedCreates: fc.integer({ min: 0, max: 3 }),
});

type Case = typeof caseArbitrary extends fc.Arbitrary<infer T> ? T : never;

function build(c: Case) {
  const parsed = gridSchema.safeParse({
    apiVersion: "berth.dev/v1alpha1",
    kind: "Grid",
    metadata: {
      name: "edge",
      namespace: "team",
      uid: "uid-1",
      generation: 2,
      finalizers: c.finalizer ? [finalizer] : [],
      creationTimestamp: "2029-12-31T23:00:00Z",
      ...(c.deleting ? { deletionTimestamp: "2030-01-01T00:00:00Z" } : {}),
    },
    spec: c.spec,
    ...(c.recorded ? { status: { gridId: c.spec.gridId ?? gridId, observedGeneration: 1 } } : {}),
  });
  if (!parsed.success) return undefined;
  const grid = parsed.data;
  const id = grid.status?.gridId ?? grid.spec.gridId ?? gridId;
  const known = c.external === "known" || c.external === "renamed";
  const observed: GridObserved = {
    problem: undefined,
    me: me([...c.scopes]),
    grid: known ? serviceGrid(id, c.external === "renamed" ? "old" : "edge") : undefined,
    gone: c.external === "gone",
    clusterUsers: c.clusterUsers,
    found: c.found?.map((name, i) => serviceGrid(`${i}b7c1f8e-3d2a-4c5b-9e6f-1a2b3c4d5e6f`, name)),
    requestId: "req_1",
    refusedCreates: c.refusedCreates,
  };
  return { grid, observed };
}

describe("planGrid properties", () => {
  it("never throws, plans at most a handful of actions, and never creates over a recorded or adopted grid ID", () => {
    fc.assert(
      fc.property(caseArbitrary, (c) => {
        const built = build(c);
        fc.pre(built !== undefined);
        if (built === undefined) return;
        const result = planFor(gridPlans, built.grid, built.observed, now);
        expect(result.actions.length).toBeLessThanOrEqual(4);
        const creates = result.actions.filter((a) => a.type === "create");
        if (built.grid.spec.gridId !== undefined) expect(creates).toEqual([]);
        if (built.grid.status?.gridId !== undefined && !built.observed.gone) expect(creates).toEqual([]);
      }),
      { numRuns: 500, seed: 20303 },
    );
  });
});
