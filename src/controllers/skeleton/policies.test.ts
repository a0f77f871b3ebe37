import { describe, expect, it } from "vitest";
import type { Condition } from "../../api/conditions.ts";
import type { ManagementPolicy } from "../../api/policies.ts";
import { type Allowance, allowanceOf, gatePlan, withAllowance } from "./policies.ts";

type ToyAction =
  | { type: "make" }
  | { type: "patch"; fields: string[] }
  | { type: "remove" }
  | { type: "note" };

const judging = {
  changes: { make: "create", patch: "update", remove: "delete", note: "none" },
  doing: { make: "making it", patch: "patching it", remove: "removing it", note: "noting" },
} as const;

const actions: ToyAction[] = [
  { type: "make" },
  { type: "patch", fields: ["image"] },
  { type: "remove" },
  { type: "note" },
];

const allowance = (policies: ManagementPolicy[], paused?: "namespace"): Allowance => ({
  policies,
  deletionPolicy: "Delete",
  paused,
});

function gate(a: Allowance, deleting = false) {
  const plan = {
    actions,
    status: {} as { conditions?: Condition[] },
    stalled: false,
    addsFinalizer: true,
    release: {},
  };
  return gatePlan(plan, judging, a, { generation: 3, now: new Date(0), deleting });
}

describe("gatePlan: which actions a policy or a pause lets through", () => {
  it.each([
    [["*"], undefined, ["make", "patch", "remove", "note"], undefined],
    [["Observe"], undefined, ["note"], "ExternalNotFound"],
    [["Observe", "Create"], undefined, ["make", "note"], "DriftNotReverted"],
    [["Observe", "Create", "Update"], undefined, ["make", "patch", "note"], "DeleteHeld"],
    [["*"], "namespace", ["note"], "Paused"],
  ] as const)("%j paused=%s lets %j through (%s)", (policies, paused, through, reason) => {
    const { plan, change } = gate(allowance([...policies], paused));
    expect(plan.actions.map((a) => a.type)).toEqual(through);
    expect(change?.set[0]?.reason).toBe(reason);
    if (reason !== undefined) {
      // Something held back: nothing is released, and nothing is said to be in flight.
      expect(plan.release).toBeUndefined();
      expect(change?.remove).toContain("Reconciling");
      expect(plan.status.conditions?.[0]).toMatchObject({
        type: "Ready",
        status: "False",
        observedGeneration: 3,
      });
    }
  });

  it("names the fields that differ", () => {
    const { change } = gate(allowance(["Observe", "Create"]));
    expect(change?.set[0]?.message).toContain("patching it (image differs)");
  });

  it("a call that prepares a change (a dry run before an order) is held back with that change", () => {
    const dryRun = { type: "note" as const, prepares: "create" as const };
    const plan = { actions: [dryRun], status: {}, stalled: false };
    const context = { generation: 1, now: new Date(0), deleting: false };
    const held = gatePlan(plan, judging, allowance(["Observe", "Update"]), context);
    expect(held.plan.actions).toEqual([]);
    expect(held.change?.set[0]?.reason).toBe("ExternalNotFound");
    expect(gatePlan(plan, judging, allowance(["Observe", "Create"]), context).plan.actions).toEqual([dryRun]);
    expect(gatePlan(plan, judging, allowance(["*"], "namespace"), context).plan.actions).toEqual([]);
  });

  it("going away, every change is the deletion's: without Delete even a stop is held", () => {
    const { plan } = gate(allowance(["Observe", "Create", "Update"]), true);
    expect(plan.actions.map((a) => a.type)).toEqual(["note"]);
  });

  it("an Observe-only resource never takes the finalizer", () => {
    expect(gate(allowance(["Observe"])).plan.addsFinalizer).toBe(false);
    expect(gate(allowance(["*"])).plan.addsFinalizer).toBe(true);
  });

  it.each([
    ["a pause", allowance(["*"], "namespace"), [{ type: "make" }], false],
    ["policies without Create", allowance(["Observe", "Update", "Delete"]), [{ type: "make" }], false],
    [
      "a pause, with an edit only (the object is known)",
      allowance(["*"], "namespace"),
      [{ type: "patch" }],
      true,
    ],
    [
      "policies without Create, with a note let through",
      allowance(["Observe", "Update"]),
      [{ type: "make" }, { type: "note" }],
      false,
    ],
    ["policies without Update, a create let through", allowance(["Observe", "Create"]), actions, true],
  ] as const)("the finalizer waits for a call that may act: %s → %s", (_, a, planned, finalizer) => {
    const plan = { actions: [...planned] as ToyAction[], status: {}, stalled: false, addsFinalizer: true };
    const context = { generation: 1, now: new Date(0), deleting: false };
    expect(gatePlan(plan, judging, a, context).plan.addsFinalizer).toBe(finalizer);
  });
});

describe("gatePlan: a Namespace annotation berth can't read holds as a pause", () => {
  const unreadable = {
    ...allowance(["*"]),
    unreadable: { annotation: "berth.dev/paused", value: "yes", accepts: '"true" or "false"' },
  };
  it("holds every change, names the annotation and what it takes, and adds no finalizer for a create", () => {
    const { plan, change } = gate(unreadable);
    expect(plan.actions.map((a) => a.type)).toEqual(["note"]);
    expect(plan.addsFinalizer).toBe(false);
    expect(change?.set[0]).toMatchObject({
      type: "Ready",
      status: "False",
      reason: "NamespaceAnnotationInvalid",
    });
    expect(change?.set[0]?.message).toContain(
      'berth.dev/paused: "yes" can\'t be read (it takes "true" or "false")',
    );
  });
  it("with nothing to hold, Ready is False and says so", () => {
    const plan = { actions: [] as ToyAction[], status: {}, stalled: false };
    const { change } = gatePlan(plan, judging, unreadable, {
      generation: 1,
      now: new Date(0),
      deleting: false,
    });
    expect(change?.set[0]).toMatchObject({ status: "False", reason: "NamespaceAnnotationInvalid" });
  });
  it("a deletion waits (it might have meant Orphan)", () => {
    const { plan } = gate(unreadable, true);
    expect(plan.actions.map((a) => a.type)).toEqual(["note"]);
    expect(plan.release).toBeUndefined();
  });
});

describe("allowanceOf: resource → namespace → operator", () => {
  const none = { paused: undefined, policies: undefined, deletionPolicy: undefined };
  it.each([
    [{}, none, ["*"], "Delete"],
    [{}, { ...none, policies: ["Observe"], deletionPolicy: "Orphan" }, ["Observe"], "Orphan"],
    [
      { managementPolicies: ["*"], deletionPolicy: "Delete" },
      { ...none, policies: ["Observe"], deletionPolicy: "Orphan" },
      ["*"],
      "Delete",
    ],
  ] as const)("spec %j, namespace %j → %j %s", (spec, defaults, policies, deletionPolicy) => {
    const result = allowanceOf(
      { spec: spec as { managementPolicies?: ManagementPolicy[]; deletionPolicy?: string } },
      { ...defaults, policies: defaults.policies === undefined ? undefined : [...defaults.policies] },
    );
    expect(result.policies).toEqual(policies);
    expect(result.deletionPolicy).toBe(deletionPolicy);
  });

  it("without Delete the resource acts as Orphan", () => {
    const resource = withAllowance({ spec: {} }, allowance(["Observe", "Create", "Update"]));
    expect(resource.spec).toMatchObject({ deletionPolicy: "Orphan" });
  });
});
