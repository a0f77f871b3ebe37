import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { appSchema } from "../../api/app.ts";
import { gridSchema } from "../../api/grid.ts";
import { projectSchema } from "../../api/project.ts";
import { serverOrderSchema } from "../../api/server-order.ts";
import type { App, Order, Server } from "../../hosting/index.ts";
import { type Inventory, importManifests, orderSpec, renderImport, resourceName } from "./manifests.ts";

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
        state: "completed",
        csp: "native",
        region: "eu-central",
        zone: "eu-central-1a",
        count: 1,
        gridIds: ["12345678-1234-1234-1234-123456789abc"],
        servers: ["srv1"],
        instanceType: "native.small",
      },
      servers: [{ address: "srv1", state: "running", gridIds: [] }],
    },
    {
      order: { id: "ord_2", state: "failed", gridIds: [], servers: [] },
      servers: [],
    },
  ],
};

describe("berth import's manifests", () => {
  const result = importManifests(inventory, "team-a");

  it("prints one Observe-only manifest per project, app, grid and order, each valid for its schema", () => {
    expect(result.manifests.map((m) => `${m.kind}/${m.metadata.name}`)).toEqual([
      "Project/legacy-shop",
      "App/web",
      "App/web-bbbbbb",
      "Grid/pool",
      "ServerOrder/order-ord-1",
    ]);
    const schemas = {
      Project: projectSchema,
      App: appSchema,
      Grid: gridSchema,
      ServerOrder: serverOrderSchema,
    };
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
  });

  it("adopts an order by spec.orderId with what the order has, so [Observe] finds no difference", () => {
    expect(result.manifests.at(-1)?.spec).toEqual({
      orderId: "ord_1",
      csp: "native",
      region: "eu-central",
      zone: "eu-central-1a",
      instanceType: "native.small",
      count: 1,
      gridIds: ["12345678-1234-1234-1234-123456789abc"],
      managementPolicies: ["Observe"],
    });
    // A failed order delivered nothing to adopt: said, not printed.
    expect(result.notes.join("\n")).toContain("order ord_2 (failed) failed at the service");
  });

  it("renders a YAML stream that parses back, with the call count", () => {
    const text = renderImport(result, { made: 7, limit: 300 });
    expect(text).toContain("# 7 calls to the service (the key allows 300 a minute)");
    const docs = parseAllDocuments(text).map((d) => d.toJS() as { kind: string });
    expect(docs.map((d) => d.kind)).toEqual(["Project", "App", "App", "Grid", "ServerOrder"]);
  });

  it.each([
    ["Legacy Shop", "legacy-shop"],
    ["--", "unnamed"],
    ["a_b.c", "a-b-c"],
  ])("names %j as %j", (name, expected) => {
    expect(resourceName(name, "abc", new Set())).toBe(expected);
  });
});

describe("orderSpec: a ServerOrder for one order", () => {
  const base: Order = { id: "ord_9", state: "completed", count: 2, gridIds: [], servers: ["a", "b"] };
  const at = (address: string, state: string): Server => ({
    address,
    state,
    gridIds: [],
    csp: "native",
    region: "eu-central",
    zone: "eu-central-1b",
    instanceType: "native.small",
  });

  it("takes the placement from a server when the order's record leaves it out", () => {
    const printed = orderSpec(base, [at("a", "running"), at("b", "running")]);
    expect(printed).toMatchObject({ spec: { csp: "native", zone: "eu-central-1b", count: 2 } });
  });

  it("asks for Hibernated when every server is hibernated", () => {
    const printed = orderSpec(base, [at("a", "hibernated"), at("b", "hibernated")]);
    expect(printed).toMatchObject({ spec: { power: "Hibernated" } });
  });

  it("says when fewer servers are listed than the order delivered", () => {
    const printed = orderSpec(base, [at("a", "running")]);
    expect(printed).toMatchObject({ note: expect.stringContaining("ServersMissing") });
  });

  it("skips an order whose placement nothing says", () => {
    expect(orderSpec(base, [])).toMatchObject({ skipped: expect.stringContaining("not printed") });
  });
});
