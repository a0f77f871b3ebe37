import { describe, expect, it } from "vitest";
import { type GridStatus, gridSchema } from "../../api/grid.ts";
import { gridOutputs } from "./outputs.ts";

const grid = gridSchema.parse({
  apiVersion: "berth.dev/v1alpha1",
  kind: "Grid",
  metadata: { name: "gpus" },
  spec: { outputs: { configMapName: "gpus-outputs" } },
});
const gridId = "0a1b2c3d-0000-4000-8000-00000000abcd";

describe("gridOutputs", () => {
  it.each<[string, GridStatus, Record<string, string>]>([
    ["not created yet: no keys", {}, {}],
    ["created: its ID", { gridId }, { gridId }],
  ])("%s", (_, status, expected) => {
    expect(gridOutputs(grid, status)).toEqual(expected);
  });
});
