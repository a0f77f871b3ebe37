import { describe, expect, it } from "vitest";
import type { Grid } from "../../api/grid.ts";
import type { KubeObject, ObjectCache, ResourceType } from "../../runtime/index.ts";
import type { ControllerDeps } from "../service/deps.ts";
import { gridUsers } from "./dependents.ts";

function object(namespace: string, name: string, spec: Record<string, unknown>): KubeObject {
  return { metadata: { namespace, name }, spec };
}

/** Only the informers `gridUsers` reads. */
function depsWith(byPlural: Record<string, KubeObject[]>): ControllerDeps {
  const informer = (type: ResourceType) =>
    ({ list: () => byPlural[type.plural] ?? [] }) as unknown as ObjectCache;
  return { informer } as unknown as ControllerDeps;
}

describe("gridUsers", () => {
  const grid = { metadata: { namespace: "team", name: "pool" } } as Grid;

  it("names ServerOrders and Apps that use the grid, by ref in its namespace or by ID anywhere", () => {
    const deps = depsWith({
      serverorders: [
        object("team", "batch", { gridRefs: [{ name: "pool" }] }),
        object("other", "batch", { gridRefs: [{ name: "pool" }] }),
        object("other", "by-id", { gridIds: ["g-1"] }),
      ],
      apps: [
        object("team", "web", { gridPriorities: [{ gridRef: { name: "pool" }, priority: 1 }] }),
        object("other", "web", { gridPriorities: [{ gridRef: { name: "pool" }, priority: 1 }] }),
        object("other", "api", { gridPriorities: [{ gridId: "g-1", priority: 2 }] }),
        object("team", "plain", {}),
      ],
    });
    expect(gridUsers(deps, grid, "g-1")).toEqual([
      "ServerOrder team/batch",
      "ServerOrder other/by-id",
      "App team/web",
      "App other/api",
    ]);
    expect(gridUsers(deps, grid, undefined)).toEqual(["ServerOrder team/batch", "App team/web"]);
  });
});
