import { describe, expect, it } from "vitest";
import type { KubeObject } from "./object.ts";
import { listedPriority, updatePriority } from "./priority.ts";

const before: KubeObject = {
  metadata: { name: "a", resourceVersion: "1", generation: 1, annotations: { x: "1" }, labels: { l: "1" } },
  status: { ready: false },
};

function updatedTo(meta: Partial<KubeObject["metadata"]>, extra: Partial<KubeObject> = {}): KubeObject {
  return { ...before, ...extra, metadata: { ...before.metadata, resourceVersion: "2", ...meta } };
}

describe("updatePriority", () => {
  it.each<[string, KubeObject, "change" | "background"]>([
    ["a new generation (spec change)", updatedTo({ generation: 2 }), "change"],
    ["a deletion", updatedTo({ deletionTimestamp: "2030-01-01T00:00:00Z" }), "change"],
    ["a changed annotation (a reconcile request)", updatedTo({ annotations: { x: "2" } }), "change"],
    ["a changed label", updatedTo({ labels: {} }), "change"],
    ["status written by someone else", updatedTo({}, { status: { ready: true } }), "background"],
    ["bookkeeping only (finalizers)", updatedTo({ finalizers: ["berth.dev/cleanup"] }), "background"],
  ])("%s", (_, updated, expected) => {
    expect(updatePriority(before, updated)).toBe(expected);
  });

  it("treats any update of an object without a generation (a Secret) as a change", () => {
    const secret = { metadata: { name: "s", resourceVersion: "1" }, data: { k: "a" } };
    expect(
      updatePriority(secret, { ...secret, metadata: { ...secret.metadata, resourceVersion: "2" } }),
    ).toBe("change");
  });
});

describe("listedPriority", () => {
  const listed = (metadata: Partial<KubeObject["metadata"]>, status?: object): KubeObject => ({
    metadata: { name: "a", generation: 2, ...metadata },
    ...(status === undefined ? {} : { status }),
  });

  it.each<[string, KubeObject, "change" | "background"]>([
    ["settled at its generation", listed({}, { observedGeneration: 2 }), "background"],
    [
      "a generation not observed yet (changed while berth was away)",
      listed({}, { observedGeneration: 1 }),
      "change",
    ],
    ["never reconciled", listed({}), "change"],
    [
      "being deleted",
      listed({ deletionTimestamp: "2030-01-01T00:00:00Z" }, { observedGeneration: 2 }),
      "change",
    ],
    ["without a generation (a Secret)", { metadata: { name: "s" } }, "background"],
  ])("%s", (_, object, expected) => {
    expect(listedPriority(object)).toBe(expected);
  });
});
