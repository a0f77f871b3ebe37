import { describe, expect, it } from "vitest";
import { managementPoliciesSchema, observeOnly, parsePolicyList, policiesAllow } from "./policies.ts";

describe("managementPolicies", () => {
  it.each([
    [["*"], true],
    [["Observe"], true],
    [["Observe", "Create", "Update"], true],
    [["Observe", "Update", "Delete"], true],
    [["Observe", "Create", "Update", "Delete"], true],
    [["Create", "Update"], false],
    [["*", "Observe"], false],
    [["Observe", "Observe"], false],
    [[], false],
  ])("%j supported: %s", (policies, supported) => {
    expect(managementPoliciesSchema.safeParse(policies).success).toBe(supported);
  });

  it.each([
    [["*"], "delete", true],
    [["Observe"], "update", false],
    [["Observe", "Create", "Update"], "delete", false],
    [["Observe", "Create", "Update"], "create", true],
  ] as const)("%j allows %s: %s", (policies, change, allowed) => {
    expect(policiesAllow(policies, change)).toBe(allowed);
  });

  it("observe-only is Observe alone", () => {
    expect(observeOnly(["Observe"])).toBe(true);
    expect(observeOnly(["Observe", "Update"])).toBe(false);
    expect(observeOnly(["*"])).toBe(false);
  });

  it("parses an annotation's comma-separated list, refusing unsupported ones", () => {
    expect(parsePolicyList("Observe, Create")).toEqual(["Observe", "Create"]);
    expect(parsePolicyList("Create")).toBeUndefined();
  });
});
