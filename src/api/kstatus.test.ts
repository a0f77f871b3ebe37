import { describe, expect, it } from "vitest";
import { kstatusOf } from "./kstatus.ts";

const at = (conditions: { type: string; status: string; message?: string }[], observedGeneration = 2) => ({
  kind: "ServerOrder",
  metadata: { generation: 2 },
  status: { observedGeneration, conditions },
});

describe("kstatusOf (kstatus's rules for custom resources)", () => {
  it.each([
    ["Reconciling=True", at([{ type: "Reconciling", status: "True", message: "ordering" }]), "InProgress"],
    ["Stalled=True", at([{ type: "Stalled", status: "True", message: "over budget" }]), "Failed"],
    ["Ready=True alone", at([{ type: "Ready", status: "True" }]), "Current"],
    // kstatus does not read Ready: with neither Reconciling nor Stalled True the resource is Current.
    ["Ready=False alone", at([{ type: "Ready", status: "False" }]), "Current"],
    ["an unobserved generation", at([{ type: "Ready", status: "True" }], 1), "InProgress"],
  ])("%s is %s", (_, object, status) => {
    expect(kstatusOf(object).status).toBe(status);
  });

  it("a resource being deleted is Terminating", () => {
    expect(kstatusOf({ metadata: { deletionTimestamp: "2026-01-01T00:00:00Z" } }).status).toBe("Terminating");
  });
});
