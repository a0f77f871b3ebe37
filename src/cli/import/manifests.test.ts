import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { appSchema } from "../../api/app.ts";
import { gridSchema } from "../../api/grid.ts";
import { projectSchema } from "../../api/project.ts";
import type { App } from "../../hosting/index.ts";
import { type Inventory, importManifests, renderImport, resourceName } from "./manifests.ts";

const projectId = "0123456789abcdef01234567";
const app = (id: string, name: string, extra: Partial<App["config"]> = {}): App => ({
  id,
  projectId,
  name,
  config: {
    image: "nginx:1.27",
    ports: [{ port: 80, protocol: "http80_load_balancer" }],
    instances: { min: 1, max: 2 },
    env: [
      { name: "MODE", value: "prod", secret: false },
      { name: "TOKEN", value: null, secret: true },
    ],
    volumes: [],
    hardware: {},
    placement: {},
    gridPriorities: {},
    command: null,
    ...extra,
  },
});

const inventory: Inventory = {
  projects: [
    {
      project: { id: projectId, name: "Legacy Shop" },
      apps: [app("aaaaaaaaaaaaaaaaaaaaaaaa", "web"), app("bbbbbbbbbbbbbbbbbbbbbbbb", "web")],
    },
  ],
  grids: [{ id: "12345678-1234-1234-1234-123456789abc", name: "pool" }],
  orders: [
    {
      order: {
        id: "ord_1",
        state: "fulfilled",
        count: 1,
        gridIds: [],
        servers: ["srv1"],
        instanceType: "native.small",
        zone: "z1",
      },
      servers: [{ address: "srv1", state: "running", gridIds: [] }],
    },
  ],
};

describe("berth import's manifests", () => {
  const result = importManifests(inventory, "team-a");

  it("prints one Observe-only manifest per project, app and grid, each valid for its schema", () => {
    expect(result.manifests.map((m) => `${m.kind}/${m.metadata.name}`)).toEqual([
      "Project/legacy-shop",
      "App/web",
      "App/web-bbbbbb",
      "Grid/pool",
    ]);
    const schemas = { Project: projectSchema, App: appSchema, Grid: gridSchema };
    for (const manifest of result.manifests) {
      expect(manifest.spec.managementPolicies).toEqual(["Observe"]);
      expect(manifest.metadata.namespace).toBe("team-a");
      const parsed = schemas[manifest.kind].safeParse(manifest);
      expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
    }
  });

  it("adopts by spec ID and leaves secret values out, saying so", () => {
    expect(result.manifests[1]?.spec).toMatchObject({
      projectId,
      appId: "aaaaaaaaaaaaaaaaaaaaaaaa",
      env: [{ name: "MODE", value: "prod" }],
    });
    expect(result.notes.join("\n")).toContain("secret env TOKEN");
    expect(result.notes.join("\n")).toContain("order ord_1");
  });

  it("renders a YAML stream that parses back, with the call count", () => {
    const text = renderImport(result, { made: 7, limit: 300 });
    expect(text).toContain("# 7 calls to the service (the key allows 300 a minute)");
    const docs = parseAllDocuments(text).map((d) => d.toJS() as { kind: string });
    expect(docs.map((d) => d.kind)).toEqual(["Project", "App", "App", "Grid"]);
  });

  it.each([
    ["Legacy Shop", "legacy-shop"],
    ["--", "unnamed"],
    ["a_b.c", "a-b-c"],
  ])("names %j as %j", (name, expected) => {
    expect(resourceName(name, "abc", new Set())).toBe(expected);
  });
});
