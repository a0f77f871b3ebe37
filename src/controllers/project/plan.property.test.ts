import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { finalizer } from "../../api/meta.ts";
import { projectKind, projectSchema } from "../../api/project.ts";
import type { Me } from "../../hosting/index.ts";
import { planFor } from "../skeleton/cleanup.ts";
import { specArbitrary } from "../skeleton/spec-arbitrary.test-support.ts";
import type { ProjectObserved } from "./memory.ts";
import { projectPlans } from "./plan.ts";

// Property tests (issue "Never wedge"): for any Project spec the CRD schema accepts and any state
// the service may report, plan never throws, plans a bounded list of actions, and never plans a
// create for a Project whose status holds a project ID unless the service said it is gone, nor ever
// for one that adopts an existing project.

const projectId = "a".repeat(24);
const now = new Date("2030-01-01T00:00:00Z");

const me = (scopes: string[]): Me => ({
  user: { id: "u1", email: "u@example.test" },
  apiKey: { id: "k1", scopes, projectIds: [], expiresAt: null },
  oauthClient: null,
});

const caseArbitrary = fc.record({
  spec: specArbitrary(projectKind),
  recorded: fc.boolean(),
  deleting: fc.boolean(),
  finalizer: fc.boolean(),
  external: fc.constantFrom("unknown", "known", "renamed", "gone"),
  scopes: fc.constantFrom(["*"], ["projects:read"], ["projects:write", "apps:read"], []),
  clusterApps: fc.array(fc.constantFrom("team/web", "team/api"), { maxLength: 2 }),
  serviceApps: fc.option(fc.array(fc.constantFrom("web", "api"), { maxLength: 2 }), { nil: undefined }),
  refusedCreates: fc.integer({ min: 0, max: 3 }),
  lookedUpNothing: fc.boolean(),
});

type Case = typeof caseArbitrary extends fc.Arbitrary<infer T> ? T : never;

function build(c: Case) {
  const parsed = projectSchema.safeParse({
    apiVersion: "berth.dev/v1alpha1",
    kind: "Project",
    metadata: {
      name: "demo",
      namespace: "team",
      uid: "uid-p",
      generation: 2,
      finalizers: c.finalizer ? [finalizer] : [],
      ...(c.deleting ? { deletionTimestamp: "2030-01-01T00:00:00Z" } : {}),
    },
    spec: c.spec,
    ...(c.recorded ? { status: { projectId: c.spec.projectId ?? projectId, observedGeneration: 1 } } : {}),
  });
  if (!parsed.success) return undefined;
  const project = parsed.data;
  const id = project.status?.projectId ?? project.spec.projectId ?? projectId;
  const atService = {
    id,
    name: c.external === "renamed" ? "old" : "demo",
    createdAt: "2030-01-01T00:00:00Z",
  };
  const observed: ProjectObserved = {
    problem: undefined,
    me: me([...c.scopes]),
    project: c.external === "known" || c.external === "renamed" ? atService : undefined,
    gone: c.external === "gone",
    clusterApps: c.clusterApps,
    serviceApps: c.serviceApps,
    requestId: "req_p",
    refusedCreates: c.refusedCreates,
    lookedUpNothing: c.lookedUpNothing,
  };
  return { project, observed };
}

describe("planProject properties", () => {
  it("never throws, plans at most a handful of actions, and never creates over a recorded or adopted project ID", () => {
    fc.assert(
      fc.property(caseArbitrary, (c) => {
        const built = build(c);
        fc.pre(built !== undefined);
        if (built === undefined) return;
        const result = planFor(projectPlans, built.project, built.observed, now);
        expect(result.actions.length).toBeLessThanOrEqual(4);
        const creates = result.actions.filter((a) => a.type === "create");
        // A recorded project the service said is gone is made again (under a new key); an adopted one never.
        if (built.project.spec.projectId !== undefined) expect(creates).toEqual([]);
        if (built.project.status?.projectId !== undefined && !built.observed.gone)
          expect(creates).toEqual([]);
      }),
      { numRuns: 500, seed: 20302 },
    );
  });
});
