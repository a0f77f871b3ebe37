import { describe, expect, it } from "vitest";
import { type ConditionChange, getCondition } from "../../api/conditions.ts";
import { finalizer } from "../../api/meta.ts";
import type { Problem } from "../service/failure.ts";
import { Reason } from "../service/reasons.ts";
import { stepsOf } from "./cleanup.test-support.ts";
import { planFor } from "./cleanup.ts";
import type { BasePlan } from "./kind.ts";

// The skeleton's choice of plan, for any kind: a toy kind whose plans name themselves.

interface Toy {
  metadata: { generation: number; deletionTimestamp?: string; finalizers?: string[] };
  spec: { suspend?: boolean; deletionPolicy?: string };
}
interface Knowledge {
  problem: Problem | undefined;
  requestId: string | undefined;
  /** The external object's ID, once known. */
  id?: string;
}
type Plan = BasePlan<{ type: string }> & { from: string; change?: ConditionChange };

const plans = {
  externalId: "toyId",
  plan: (_toy: Toy, knowledge: Knowledge): Plan => ({
    from: "plan",
    actions: knowledge.id === undefined ? [{ type: "create" }] : [],
    status: knowledge.id === undefined ? {} : ({ toyId: knowledge.id } as Plan["status"]),
    stalled: false,
  }),
  planCleanup: (): Plan => ({
    from: "planCleanup",
    actions: [{ type: "delete" }],
    status: {},
    stalled: false,
  }),
  report: (_toy: Toy, _knowledge: Knowledge, change: ConditionChange, now: Date): Plan => ({
    from: "report",
    change,
    actions: [],
    status: { conditions: change.set.map((c) => ({ ...c, lastTransitionTime: now.toISOString() })) },
    stalled: false,
  }),
};

const now = new Date("2030-01-01T00:00:00Z");
const deleting = "2030-01-01T00:00:00Z";
const known: Knowledge = { problem: undefined, requestId: undefined, id: "t-1" };
const unknown: Knowledge = { problem: undefined, requestId: undefined };
const problem: Problem = { stalled: true, reason: Reason.CredentialsNotFound, message: "no key" };

function toy(spec: Toy["spec"], metadata: Partial<Toy["metadata"]> = {}): Toy {
  return { metadata: { generation: 3, finalizers: [finalizer], ...metadata }, spec };
}

describe("planFor: the skeleton decides deletion, suspend, Orphan and the finalizer", () => {
  it.each([
    [
      "going away without berth's finalizer: nothing",
      toy({}, { deletionTimestamp: deleting, finalizers: [] }),
      known,
      "report",
      [],
    ],
    [
      "going away under Orphan: release, no calls",
      toy({ deletionPolicy: "Orphan" }, { deletionTimestamp: deleting }),
      known,
      "report",
      ["removeFinalizer"],
    ],
    [
      "going away: the kind's cleanup",
      toy({}, { deletionTimestamp: deleting }),
      known,
      "planCleanup",
      ["delete"],
    ],
    [
      "going away while suspended: still cleaned up",
      toy({ suspend: true }, { deletionTimestamp: deleting }),
      known,
      "planCleanup",
      ["delete"],
    ],
    ["suspended: no calls, no finalizer", toy({ suspend: true }, { finalizers: [] }), unknown, "report", []],
    ["a problem: no calls, no finalizer", toy({}, { finalizers: [] }), { ...unknown, problem }, "report", []],
    ["there, finalizer held: the kind's plan", toy({}), unknown, "plan", ["create"]],
    [
      "there, no finalizer: added before the first action",
      toy({}, { finalizers: [] }),
      unknown,
      "plan",
      ["addFinalizer", "create"],
    ],
    [
      "there, no finalizer, the object known: added with no action",
      toy({}, { finalizers: [] }),
      known,
      "plan",
      ["addFinalizer"],
    ],
    ["there, finalizer held, nothing to do: nothing", toy({}), known, "plan", []],
  ] as const)("%s", (_name, resource, knowledge, from, steps) => {
    const plan = planFor(plans, resource, knowledge, now);
    expect(plan.from).toBe(from);
    expect(stepsOf(plan)).toEqual(steps);
  });

  it("says why: Suspended, the problem's reason, Deleting under Orphan, nothing without a finalizer", () => {
    const ready = (resource: Toy, knowledge: Knowledge) =>
      getCondition(planFor(plans, resource, knowledge, now).status.conditions, "Ready");
    const stalled = (resource: Toy, knowledge: Knowledge) =>
      getCondition(planFor(plans, resource, knowledge, now).status.conditions, "Stalled");
    expect(ready(toy({ suspend: true }), known)).toMatchObject({ status: "False", reason: "Suspended" });
    expect(stalled(toy({}), { ...known, problem })).toMatchObject({
      status: "True",
      reason: "CredentialsNotFound",
    });
    expect(ready(toy({ deletionPolicy: "Orphan" }, { deletionTimestamp: deleting }), known)).toMatchObject({
      status: "Unknown",
      reason: "Deleting",
    });
    expect(
      planFor(plans, toy({}, { deletionTimestamp: deleting, finalizers: [] }), known, now).change,
    ).toEqual({
      set: [],
      remove: [],
    });
  });

  it("marks an Orphan release as one, for the Orphaned event", () => {
    const plan = planFor(
      plans,
      toy({ deletionPolicy: "Orphan" }, { deletionTimestamp: deleting }),
      known,
      now,
    );
    expect(plan.release).toEqual({ orphan: true });
  });

  it("releases without calls under Delete when the resource's CRD is being deleted, saying why", () => {
    const removing = {
      policies: ["*"] as const,
      deletionPolicy: "Orphan" as const,
      paused: undefined,
      uninstalling: "toys.berth.dev",
    };
    const plan = planFor(plans, toy({}, { deletionTimestamp: deleting }), known, now, undefined, removing);
    expect(plan.from).toBe("report");
    expect(stepsOf(plan)).toEqual(["removeFinalizer"]);
    const because = "its CRD toys.berth.dev is being deleted: berth is being removed";
    expect(plan.release).toEqual({ orphan: true, because });
    expect(getCondition(plan.status.conditions, "Ready")?.message).toBe(
      `releasing; it stays at the service (${because})`,
    );
  });
});

describe("planFor: a deletion asks the service again before it releases", () => {
  const released = {
    ...plans,
    planCleanup: (): Plan => ({ from: "planCleanup", actions: [], status: {}, stalled: false, release: {} }),
    reask: (intent: { operation: string; key: string }) => ({
      type: `again ${intent.operation} ${intent.key}`,
    }),
  };
  const intent = (state: string, since: string) => ({
    operation: "order",
    key: "k-1",
    input: "{}",
    attempt: 1,
    since,
    state: state as "Pending" | "Refused" | "NotFound",
  });
  const going = (intents: ReturnType<typeof intent>[]) => ({
    ...toy({}, { deletionTimestamp: deleting }),
    status: { intents },
  });
  const hourAgo = "2029-12-31T23:00:00Z";

  it.each([
    [
      "a call found nowhere, key still replayable: sent again, not released",
      [intent("NotFound", hourAgo)],
      ["again order k-1"],
    ],
    [
      "its key past the service's 24 h: released",
      [intent("NotFound", "2029-12-30T00:00:00Z")],
      ["removeFinalizer"],
    ],
    ["a refused call acts no more: released", [intent("Refused", hourAgo)], ["removeFinalizer"]],
    ["no intents: released", [], ["removeFinalizer"]],
  ])("%s", (_, intents, steps) => {
    const plan = planFor(released, going(intents) as Toy, known, now);
    expect(stepsOf(plan)).toEqual(steps);
  });

  it("says what it is waiting for", () => {
    const plan = planFor(released, going([intent("NotFound", hourAgo)]) as Toy, known, now);
    expect(plan.change?.set.find((c) => c.type === "Reconciling")?.message).toContain(
      "asking the service for the answer to order (key k-1) before releasing",
    );
  });
});

describe("planFor: a call whose earlier call the lookup found no trace of sends that one first", () => {
  // The kind plans `create` under key k-2 (the spec changed since k-1 was sent and found nowhere).
  const changed = {
    ...plans,
    plan: (): Plan => ({
      from: "plan",
      actions: [{ type: "create", intent: { operation: "create", key: "k-2" } } as { type: string }],
      status: {},
      stalled: false,
    }),
    reask: (intent: { operation: string; key: string }) => ({
      type: `again ${intent.operation} ${intent.key}`,
    }),
  };
  const earlier = (state: string, since: string, key = "k-1") => ({
    ...toy({}),
    status: { intents: [{ operation: "create", key, input: "{}", attempt: 1, since, state }] },
  });
  const hourAgo = "2029-12-31T23:00:00Z";

  it.each([
    [
      "found nowhere, its key still replayable: the earlier call first",
      earlier("NotFound", hourAgo),
      ["again create k-1"],
    ],
    [
      "under the same key: the plan's own call (it is that call)",
      earlier("NotFound", hourAgo, "k-2"),
      ["create"],
    ],
    [
      "its key past the service's 24 h: the plan's call",
      earlier("NotFound", "2029-12-30T00:00:00Z"),
      ["create"],
    ],
    ["refused for certain: the plan's call", earlier("Refused", hourAgo), ["create"]],
  ])("%s", (_, resource, steps) => {
    expect(planFor(changed, resource as Toy, unknown, now).actions.map((a) => a.type)).toEqual(steps);
  });

  it("a kind that can't send the earlier call again keeps its own", () => {
    const cannot = { ...changed, reask: () => undefined };
    const plan = planFor(cannot, earlier("NotFound", hourAgo) as Toy, unknown, now);
    expect(plan.actions.map((a) => a.type)).toEqual(["create"]);
  });
});
