import { describe, expect, it } from "vitest";
import {
  type App,
  type AppStatus,
  type Build,
  createApp,
  createProject,
  demoKey,
  expectError,
  type Grid,
  type Logs,
  type Order,
  type Page,
  type Project,
  useSimulator,
} from "./support.ts";

// hosting-api.md, "Resources and their fields": Identifiers, API key, Identity record, Project,
// App, App status, Other records.

describe("Identifiers", () => {
  const h = useSimulator();

  it("projects and apps have 24-hex ids, grids GUIDs, servers 0x + 40 hex; builds and orders string ids", async () => {
    const project = await createProject(h.api);
    const app = await createApp(h.api, project.id, {
      config: {},
      source: { provider: "gitlab", repository: "acme/api", branch: "main" },
    });
    const grid = (await h.api.post<Grid>("/grids", { name: "g" })).body;
    const order = (
      await h.api.post<Order>("/servers/provision", {
        dryRun: false,
        region: "us-east",
        zone: "us-east-1b",
        instanceType: "aws.medium",
        csp: "aws",
        count: 1,
      })
    ).body;
    h.sim.advanceClock(20);
    const address = (await h.api.get<Order>(`/servers/orders/${order.id}`)).body.servers[0];
    expect(project.id).toMatch(/^[0-9a-f]{24}$/);
    expect(app.id).toMatch(/^[0-9a-f]{24}$/);
    expect(grid.id).toMatch(/^[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}$/);
    expect(address).toMatch(/^0x[0-9a-f]{40}$/);
    expect(typeof app.buildId).toBe("string");
    expect(typeof order.id).toBe("string");
  });

  it("invoices are addressed by their number", async () => {
    const invoice = (await h.api.get<Page<{ number: string }>>("/billing/invoices")).body.items[0];
    expect(invoice?.number).toMatch(/^INV-\d{6}-\d{4}$/);
    expect((await h.api.get(`/billing/invoices/${invoice?.number}`)).body).toMatchObject({
      number: invoice?.number,
    });
  });
});

describe("API key and identity record (GET /me)", () => {
  const h = useSimulator();

  it("returns user, apiKey (scopes and projectIds of the key) and oauthClient", async () => {
    const me = await h.api.get<{
      user: unknown;
      apiKey: { scopes: string[]; projectIds: string[] };
      oauthClient: null;
    }>("/me");
    expect(me.body).toEqual({
      user: { id: "usr_demo", email: "demo@sim.berth.dev" },
      apiKey: { id: expect.stringMatching(/^key_/), scopes: ["*"], projectIds: [], expiresAt: null },
      oauthClient: null,
    });
  });

  it("an expiry, when set, is reported", async () => {
    const key = demoKey(h, { scopes: ["apps:read"], expiresAt: "2031-01-01T00:00:00Z" });
    const me = await key.api.get<{ apiKey: { expiresAt: string } }>("/me");
    expect(me.body.apiKey.expiresAt).toBe("2031-01-01T00:00:00.000Z");
  });
});

describe("Project", () => {
  const h = useSimulator();

  it("name is required on creation; the id is returned", async () => {
    const missing = await h.api.post("/projects", {});
    expect(expectError(missing, 400, "validation_failed").details).toEqual([
      { path: "name", message: expect.any(String) },
    ]);
    expectError(await h.api.post("/projects", { name: "  " }), 400, "validation_failed");
    const created = await h.api.post<Project>("/projects", { name: "shop" });
    expect(created.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{24}$/),
      name: "shop",
      createdAt: expect.any(String),
    });
  });

  it("renaming is a PATCH of the name (by the owner)", async () => {
    const project = await createProject(h.api, "old");
    expect((await h.api.patch<Project>(`/projects/${project.id}`, { name: "new" })).body.name).toBe("new");
    expect((await h.api.get<Project>(`/projects/${project.id}`)).body.name).toBe("new");
  });
});

describe("App", () => {
  const h = useSimulator();

  it("name and config are required; an app runs from config.image or from source, not both", async () => {
    const project = await createProject(h.api);
    const path = `/projects/${project.id}/apps`;
    expectError(await h.api.post(path, { config: { image: "nginx" } }), 400, "validation_failed");
    expectError(await h.api.post(path, { name: "x" }), 400, "validation_failed");
    const neither = expectError(await h.api.post(path, { name: "x", config: {} }), 400, "validation_failed");
    expect(neither.details?.[0]?.path).toBe("config.image");
    const both = await h.api.post(path, {
      name: "x",
      config: { image: "nginx" },
      source: { provider: "github", repository: "a/b", branch: "main" },
    });
    expectError(both, 400, "validation_failed");
  });

  it("the created app carries its config with defaults filled in", async () => {
    const project = await createProject(h.api);
    const app = await createApp(h.api, project.id, {
      config: { image: "nginx:1.27", command: ["nginx", "-g"] },
    });
    expect(app).toMatchObject({
      projectId: project.id,
      name: "web",
      config: {
        image: "nginx:1.27",
        ports: [],
        instances: { min: 1, max: 1 },
        env: [],
        volumes: [],
        hardware: {},
        placement: {},
        gridPriorities: {},
        command: ["nginx", "-g"],
      },
    });
    const read = (await h.api.get<App>(`/projects/${project.id}/apps/${app.id}`)).body;
    expect(read.start).toBeUndefined();
    expect(read.config).toEqual(app.config);
  });

  it("ports take an integer port and a protocol; http80_load_balancer is valid", async () => {
    const project = await createProject(h.api);
    const path = `/projects/${project.id}/apps`;
    const ok = await h.api.post<App>(path, {
      name: "lb",
      config: { image: "nginx", ports: [{ port: 80, protocol: "http80_load_balancer" }] },
    });
    expect(ok.status).toBe(201);
    const bad = await h.api.post(path, {
      name: "x",
      config: { image: "nginx", ports: [{ port: 80.5, protocol: "http" }] },
    });
    expect(expectError(bad, 400, "validation_failed").details?.[0]?.path).toBe("config.ports[0].port");
  });

  it("apps are listed per project and found by name", async () => {
    const project = await createProject(h.api);
    await createApp(h.api, project.id, { name: "a" });
    const b = await createApp(h.api, project.id, { name: "b" });
    const byName = await h.api.get<Page<App>>(`/projects/${project.id}/apps?name=b`);
    expect(byName.body.items.map((a) => a.id)).toEqual([b.id]);
  });
});

describe("App status", () => {
  const h = useSimulator();

  it("has state, targetState, nodes, errors and endpoints, and what it is charged now", async () => {
    const project = await createProject(h.api);
    const app = await createApp(h.api, project.id);
    const current = (await h.api.get<AppStatus>(`/projects/${project.id}/apps/${app.id}/status`)).body;
    expect(Object.keys(current).sort()).toEqual([
      "currency",
      "currentHourlyCost",
      "endpoints",
      "errors",
      "nodes",
      "state",
      "targetState",
    ]);
  });
});

describe("Other records", () => {
  const h = useSimulator();

  it("builds carry pollAfterSec; build logs and app logs use the export shape", async () => {
    const project = await createProject(h.api);
    const app = await createApp(h.api, project.id, {
      config: {},
      source: { provider: "bitbucket", repository: "acme/web", branch: "dev" },
    });
    const build = (await h.api.get<Build>(`/builds/${app.buildId}`)).body;
    expect(build).toMatchObject({ id: app.buildId, appId: app.id, state: "queued", failedStep: null });
    expect(build.pollAfterSec).toBeGreaterThanOrEqual(1);
    const logs = (await h.api.get<Logs>(`/builds/${app.buildId}/logs`)).body;
    expect(Object.keys(logs).sort()).toEqual(["lines", "text", "truncated"]);
  });

  it("usage reports what the app consumed", async () => {
    const project = await createProject(h.api);
    const app = await createApp(h.api, project.id);
    h.sim.advanceClock(3 + 3600);
    const usage = (
      await h.api.get<{ runningSeconds: number; instances: number; cost: string; requests: number }>(
        `/projects/${project.id}/apps/${app.id}/usage`,
      )
    ).body;
    expect(usage).toMatchObject({ runningSeconds: 3600, instances: 1, cost: "0.0120", requests: 360 });
  });
});
