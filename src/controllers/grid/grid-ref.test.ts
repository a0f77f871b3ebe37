import { describe, expect, it } from "vitest";
import type { KubeObject } from "../../runtime/index.ts";
import { resolveGridIds, resolveGridRef } from "./grid-ref.ts";

const id = "0B7C1F8E-3D2A-4C5B-9E6F-1A2B3C4D5E6F";

const gridObject = (name: string, status?: object, deletionTimestamp?: string): KubeObject => ({
  metadata: { name, namespace: "team", ...(deletionTimestamp ? { deletionTimestamp } : {}) },
  ...(status ? { status } : {}),
});

describe("resolveGridRef", () => {
  it("gives the Grid's status.gridId, lowercased", () => {
    expect(resolveGridRef(gridObject("edge", { gridId: id }), "team", "edge")).toEqual({
      ok: true,
      gridId: id.toLowerCase(),
    });
  });

  it.each([
    ["a missing Grid", undefined, /Grid edge to exist in namespace team/],
    ["a Grid without a grid ID yet", gridObject("edge", {}), /Grid edge to get its grid ID/],
    ["a Grid being deleted", gridObject("edge", { gridId: id }, "2030-01-01T00:00:00Z"), /being deleted/],
  ])("reports %s as GridNotReady, waiting rather than stalled", (_name, object, message) => {
    const result = resolveGridRef(object, "team", "edge");
    expect(result).toMatchObject({ ok: false, problem: { stalled: false, reason: "GridNotReady" } });
    expect(result.ok ? "" : result.problem.message).toMatch(message);
  });
});

describe("resolveGridIds", () => {
  const grids: Record<string, KubeObject> = {
    a: gridObject("a", { gridId: "bbbbbbbb-0000-4000-8000-000000000000" }),
    b: gridObject("b", { gridId: "aaaaaaaa-0000-4000-8000-000000000000" }),
    pending: gridObject("pending", {}),
  };
  const lookup = (_namespace: string, name: string) => grids[name];

  it("joins direct IDs and resolved references, sorted and without repeats", () => {
    const result = resolveGridIds(
      lookup,
      "team",
      [{ name: "a" }, { name: "b" }],
      ["AAAAAAAA-0000-4000-8000-000000000000"],
    );
    expect(result).toEqual({
      ok: true,
      gridIds: ["aaaaaaaa-0000-4000-8000-000000000000", "bbbbbbbb-0000-4000-8000-000000000000"],
    });
  });

  it("stops at a reference that is not ready", () => {
    expect(resolveGridIds(lookup, "team", [{ name: "a" }, { name: "pending" }], [])).toMatchObject({
      ok: false,
      problem: { reason: "GridNotReady" },
    });
  });
});
