import { describe, expect, it } from "vitest";
import { namespaceManagement, type OperatorManagement } from "./namespaces.ts";

const operator: OperatorManagement = { paused: false, policies: undefined, deletionPolicy: undefined };

describe("namespaceManagement: the Namespace's annotations over the operator's flags", () => {
  it.each([
    [{}, operator, { paused: undefined, policies: undefined, deletionPolicy: undefined }],
    [{ "berth.dev/paused": "true" }, operator, { paused: "namespace" }],
    [{ "berth.dev/paused": "false" }, { ...operator, paused: true }, { paused: "operator" }],
    [{ "berth.dev/management-policies": "Observe" }, operator, { policies: ["Observe"] }],
    // Not a supported combination: unreadable (fails closed), the operator's default applies meanwhile.
    [
      { "berth.dev/management-policies": "Create" },
      { ...operator, policies: ["*"] },
      { policies: ["*"], unreadable: { annotation: "berth.dev/management-policies", value: "Create" } },
    ],
    [{ "berth.dev/paused": " True " }, operator, { paused: "namespace" }],
    [
      { "berth.dev/paused": "yes" },
      operator,
      {
        paused: undefined,
        unreadable: { annotation: "berth.dev/paused", value: "yes", accepts: '"true" or "false"' },
      },
    ],
    [
      { "berth.dev/management-policies": "observe" },
      operator,
      { policies: undefined, unreadable: { annotation: "berth.dev/management-policies", value: "observe" } },
    ],
    [
      { "berth.dev/deletion-policy": "orphan" },
      { ...operator, deletionPolicy: "Delete" },
      { deletionPolicy: "Delete", unreadable: { annotation: "berth.dev/deletion-policy", value: "orphan" } },
    ],
    // Several: the first is named.
    [
      { "berth.dev/deletion-policy": "orphan", "berth.dev/paused": "yes" },
      operator,
      { unreadable: { annotation: "berth.dev/paused" } },
    ],
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
