import { describe, expect, it } from "vitest";
import { namespaceManagement, type OperatorManagement } from "./namespaces.ts";

const operator: OperatorManagement = { paused: false, policies: undefined, deletionPolicy: undefined };

describe("namespaceManagement: the Namespace's annotations over the operator's flags", () => {
  it.each([
    [{}, operator, { paused: undefined, policies: undefined, deletionPolicy: undefined }],
    [{ "berth.dev/paused": "true" }, operator, { paused: "namespace" }],
    [{ "berth.dev/paused": "false" }, { ...operator, paused: true }, { paused: "operator" }],
    [{ "berth.dev/management-policies": "Observe" }, operator, { policies: ["Observe"] }],
    // Not a supported combination: ignored, the operator's default applies.
    [{ "berth.dev/management-policies": "Create" }, { ...operator, policies: ["*"] }, { policies: ["*"] }],
    [
      { "berth.dev/deletion-policy": "Orphan" },
      { ...operator, deletionPolicy: "Delete" },
      { deletionPolicy: "Orphan" },
    ],
    [{}, { ...operator, deletionPolicy: "Orphan" }, { deletionPolicy: "Orphan" }],
  ] as const)("%j with %j → %j", (annotations, flags, expected) => {
    expect(namespaceManagement(annotations, flags)).toMatchObject(expected);
  });
});
