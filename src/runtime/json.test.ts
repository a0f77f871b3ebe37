import { describe, expect, it } from "vitest";
import { deepEqual, mergePatch } from "./json.ts";

describe("mergePatch (the status diff)", () => {
  const status = {
    observedGeneration: 3,
    appId: "a1",
    conditions: [
      { type: "Ready", status: "True", reason: "Running" },
      { type: "Reconciling", status: "False", reason: "Done" },
    ],
    nodes: { ready: 2, total: 2 },
  };

  it("is undefined when nothing changed, whatever the key order", () => {
    const reordered = {
      nodes: { total: 2, ready: 2 },
      conditions: status.conditions,
      appId: "a1",
      observedGeneration: 3,
    };
    expect(mergePatch(status, reordered)).toBeUndefined();
  });

  it("holds only the changed fields, nested objects diffed by key", () => {
    expect(mergePatch(status, { ...status, observedGeneration: 4, nodes: { ready: 1, total: 2 } })).toEqual({
      observedGeneration: 4,
      nodes: { ready: 1 },
    });
  });

  it("nulls removed fields", () => {
    const { appId: _removed, ...rest } = status;
    expect(mergePatch(status, rest)).toEqual({ appId: null });
  });

  it("replaces arrays whole (a merge patch cannot address list items)", () => {
    const conditions = [{ type: "Ready", status: "False", reason: "Building" }, status.conditions[1]];
    expect(mergePatch(status, { ...status, conditions })).toEqual({ conditions });
  });

  it("sets the whole status when there was none", () => {
    expect(mergePatch(undefined, { appId: "a1" })).toEqual({ appId: "a1" });
  });

  it("treats undefined fields as absent", () => {
    expect(mergePatch({ a: 1 }, { a: 1, b: undefined })).toBeUndefined();
    expect(deepEqual({ a: 1, b: undefined }, { a: 1 })).toBe(true);
    expect(deepEqual([1, 2], [2, 1])).toBe(false);
  });
});
