import { describe, expect, it } from "vitest";
import { applyConditionChange } from "../../api/conditions.ts";
import type { ManagementPolicy } from "../../api/policies.ts";
import { reportedDifference, unrevertable } from "./unrevertable.ts";

const blocker = { stalled: true, reason: "ImmutableAfterOrder", message: "spec.zone is b but order o has a" };

describe("unrevertable: a difference no call can revert", () => {
  it.each([
    [undefined, "Stalled", "ImmutableAfterOrder"],
    [["*"], "Stalled", "ImmutableAfterOrder"],
    [["Observe", "Update"], "Stalled", "ImmutableAfterOrder"],
    [["Observe"], "Ready", "DriftNotReverted"],
    [["Observe", "Create", "Delete"], "Ready", "DriftNotReverted"],
  ] as const)("policies %j: %s %s", (policies, type, reason) => {
    const spec = policies === undefined ? {} : { managementPolicies: [...policies] as ManagementPolicy[] };
    const change = unrevertable(spec, ["zone"], blocker, 4);
    const set = change.set.find((c) => c.type === type);
    expect(set?.reason).toBe(reason);
    expect(set?.observedGeneration).toBe(4);
    if (reason === "DriftNotReverted") {
      // Reported, not failed: nothing in flight and nothing for a person to fix (kstatus Current).
      expect(set?.status).toBe("False");
      expect(change.set.map((c) => c.type)).toEqual(["Ready"]);
      expect(change.remove).toEqual(expect.arrayContaining(["Reconciling", "Stalled"]));
      expect(set?.message).toContain("(zone differs)");
      expect(set?.message).toContain("spec.zone is b but order o has a");
    }
  });

  it("names several fields", () => {
    const change = unrevertable({ managementPolicies: ["Observe"] }, ["zone", "csp"], blocker, 1);
    expect(change.set[0]?.message).toContain("(zone, csp differ)");
  });
});

describe("reportedDifference: what the skeleton records an event for", () => {
  const now = new Date(0);
  it("is the Ready condition when it says DriftNotReverted", () => {
    const change = unrevertable({ managementPolicies: ["Observe"] }, ["name"], blocker, 2);
    const conditions = applyConditionChange(undefined, change, now);
    expect(reportedDifference(conditions)?.set[0]).toMatchObject({ reason: "DriftNotReverted" });
  });

  it("is nothing for any other Ready", () => {
    const conditions = applyConditionChange(undefined, unrevertable({}, ["name"], blocker, 2), now);
    expect(reportedDifference(conditions)).toBeUndefined();
    expect(reportedDifference(undefined)).toBeUndefined();
  });
});
