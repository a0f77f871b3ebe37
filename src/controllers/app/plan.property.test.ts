import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type App, appSchema } from "../../api/app.ts";
import { finalizer } from "../../api/meta.ts";
import { planFor } from "../skeleton/cleanup.ts";
import {
  desiredOf,
  me,
  now,
  observed,
  polls,
  projectId,
  serviceApp,
  serviceStatus,
} from "./builders.test-support.ts";
import type { AppObserved } from "./memory.ts";
import { appPlans } from "./plan.ts";

// Property tests (issue "Never wedge"): for any App the CRD schema accepts and any state the service
// may report, plan never throws, plans a bounded list of actions, and never plans a create for an
// App whose status holds an external ID unless the service said that ID is gone.

const text = (max: number) => fc.string({ minLength: 1, maxLength: max });
const envName = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,15}$/);

const specArbitrary = fc.record(
  {
    displayName: fc.oneof(text(40), fc.constant("web app\n"), fc.constant("  padded  ")),
    image: fc.constantFrom("nginx:1.27", "nginx:1.28", "ghcr.io/acme/web@sha256:abc"),
    ports: fc.uniqueArray(
      fc.record({
        port: fc.integer({ min: 1, max: 65535 }),
        protocol: fc.constantFrom("http80_load_balancer", "tcp"),
      }),
      { selector: (p) => p.port, maxLength: 4 },
    ),
    instances: fc
      .tuple(fc.integer({ min: 0, max: 5 }), fc.integer({ min: 1, max: 5 }))
      .map(([a, b]) => ({ min: Math.min(a, b), max: Math.max(a, b) })),
    env: fc.uniqueArray(fc.record({ name: envName, value: text(20) }), {
      selector: (e) => e.name,
      maxLength: 4,
    }),
    hardware: fc.dictionary(fc.constantFrom("cpu", "memoryMb"), fc.integer({ min: 1, max: 4096 })),
    command: fc.array(text(10), { maxLength: 3 }),
    stopped: fc.boolean(),
    suspend: fc.boolean(),
    deletionPolicy: fc.constantFrom("Delete", "Orphan"),
  },
  { requiredKeys: ["image"] },
);

const stateArbitrary = fc.constantFrom(
  "requested",
  "deferred",
  "building",
  "build_failed",
  "provisioning",
  "start_blocked",
  "running",
  "stopping",
  "stopped",
  "migrating",
  "pending_capacity",
);

const caseArbitrary = fc.record({
  spec: specArbitrary,
  recorded: fc.boolean(),
  deleting: fc.boolean(),
  finalizer: fc.boolean(),
  external: fc.constantFrom("unknown", "known", "gone"),
  state: stateArbitrary,
  reconcileAnnotation: fc.option(fc.string({ maxLength: 400 }), { nil: undefined }),
  refusedCreates: fc.integer({ min: 0, max: 3 }),
});

type Case = typeof caseArbitrary extends fc.Arbitrary<infer T> ? T : never;

function build(c: Case): { app: App; seen: AppObserved } | undefined {
  const parsed = appSchema.safeParse({
    apiVersion: "berth.dev/v1alpha1",
    kind: "App",
    metadata: {
      name: "web",
      namespace: "team",
      uid: "uid-1",
      generation: 2,
      finalizers: c.finalizer ? [finalizer] : [],
      creationTimestamp: "2029-12-31T23:59:00Z",
      ...(c.deleting ? { deletionTimestamp: "2030-01-01T00:00:00Z" } : {}),
      ...(c.reconcileAnnotation === undefined
        ? {}
        : { annotations: { "berth.dev/reconcile-requested-at": c.reconcileAnnotation } }),
    },
    spec: { projectId, ...c.spec },
    ...(c.recorded ? { status: { appId: "b".repeat(24), projectId, observedGeneration: 1 } } : {}),
  });
  if (!parsed.success) return undefined;
  const app = parsed.data;
  const external =
    c.external === "known"
      ? { app: serviceApp(desiredOf(app)), status: serviceStatus(c.state as "running") }
      : c.external === "gone"
        ? { gone: true }
        : {};
  return { app, seen: observed(app, external, { refusedCreates: c.refusedCreates, me: me() }) };
}

describe("planApp properties", () => {
  it("never throws, plans at most a handful of actions, and never creates over a recorded ID it hasn't seen gone", () => {
    fc.assert(
      fc.property(caseArbitrary, (c) => {
        const built = build(c);
        fc.pre(built !== undefined);
        if (built === undefined) return;
        const result = planFor(appPlans(polls), built.app, built.seen, now);
        expect(result.actions.length).toBeLessThanOrEqual(6);
        const creates = result.actions.filter((a) => a.type === "create");
        if (built.app.status?.appId !== undefined && !built.seen.external.gone) expect(creates).toEqual([]);
        // Status stays writable: every echo fits the status fields' 256 characters.
        expect((result.status.lastHandledReconcileAt ?? "").length).toBeLessThanOrEqual(256);
      }),
      { numRuns: 500, seed: 20301 },
    );
  });
});
