import { describe, expect, it } from "vitest";
import {
  type App,
  addUserWithKey,
  createApp,
  createProject,
  demoKey,
  expectError,
  type Grid,
  type Page,
  type Project,
  START,
  useSimulator,
} from "./support.ts";

// hosting-api.md, "Authentication" (rules 1–7), "Scopes", "Sharing permissions" (roles), and
// "Errors" → Authentication and permission errors.

describe("Authentication", () => {
  const h = useSimulator();

  it("1. every REST request carries Authorization: Bearer <API_KEY>", async () => {
    expectError(await h.api.as(undefined).get("/me"), 401, "unauthorized");
    const basic = await h.api
      .as(undefined)
      .get("/me", { headers: { authorization: `Basic ${h.simulator.demoKey}` } });
    expectError(basic, 401, "unauthorized");
    expectError(await h.api.as("bsk_not_a_real_key").get("/me"), 401, "unauthorized");
    expect((await h.api.get("/me")).status).toBe(200);
  });

  it("2. browser sign-in cookies do not authenticate", async () => {
    const response = await h.api
      .as(undefined)
      .get("/me", { headers: { cookie: `session=${h.simulator.demoKey}` } });
    expectError(response, 401, "unauthorized");
  });

  it("3. OAuth access tokens are refused by every REST endpoint", async () => {
    const jwt = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ1c3JfZGVtbyJ9.c2lnbmF0dXJl";
    for (const token of [jwt, "oat_0123456789abcdef"]) {
      const error = expectError(await h.api.as(token).get("/projects"), 401, "unauthorized");
      expect(error.message).toMatch(/MCP/);
    }
  });

  it("API key expiry is optional; an expired or revoked key is refused with 401", async () => {
    const forever = demoKey(h, { scopes: ["*"] });
    const expiring = demoKey(h, {
      scopes: ["*"],
      expiresAt: new Date(Date.parse(START) + 60_000).toISOString(),
    });
    expect((await expiring.api.get("/me")).status).toBe(200);
    h.sim.advanceClock(61);
    expect(expectError(await expiring.api.get("/me"), 401, "unauthorized").message).toMatch(/expired/);
    expect((await forever.api.get("/me")).status).toBe(200);
    h.sim.revokeKey(forever.keyId);
    expect(expectError(await forever.api.get("/me"), 401, "unauthorized").message).toMatch(/revoked/);
  });

  it("4. a key never grants more access than its user has", async () => {
    const project = await createProject(h.api);
    const other = addUserWithKey(h, { id: "mallory", scopes: ["*"] });
    expectError(await other.api.get(`/projects/${project.id}`), 404, "not_found");
    expect((await other.api.get<Page<Project>>("/projects")).body.items).toEqual([]);
  });

  it("5. a non-empty projectIds list restricts project and app access to those projects", async () => {
    const allowed = await createProject(h.api, "allowed");
    const other = await createProject(h.api, "other");
    const app = await createApp(h.api, other.id);
    const pinned = demoKey(h, { scopes: ["*"], projectIds: [allowed.id] }).api;
    expect((await pinned.get(`/projects/${allowed.id}`)).status).toBe(200);
    const error = expectError(await pinned.get(`/projects/${other.id}`), 403, "key_project_restricted");
    expect(error.projectId).toBe(other.id);
    expectError(
      await pinned.get(`/projects/${other.id}/apps/${app.id}/status`),
      403,
      "key_project_restricted",
    );
    expect((await pinned.get<Page<Project>>("/projects")).body.items.map((p) => p.id)).toEqual([allowed.id]);
    // An empty list pins nothing.
    expect((await h.api.get<Page<Project>>("/projects")).body.items).toHaveLength(2);
  });

  it("5. pinning does not make the user a member of a project", async () => {
    const project = await createProject(h.api);
    const outsider = addUserWithKey(h, { id: "outsider", projectIds: [project.id] });
    expectError(await outsider.api.get(`/projects/${project.id}`), 404, "not_found");
  });

  it("6. a pinned key cannot create a project", async () => {
    const project = await createProject(h.api);
    const pinned = demoKey(h, { scopes: ["*"], projectIds: [project.id] }).api;
    expectError(await pinned.post("/projects", { name: "new" }), 403, "key_project_restricted");
  });

  it("7. rate limiting is counted per credential after authentication (one budget per key)", async () => {
    const first = await h.api.get("/me");
    const second = await h.api.get("/me");
    expect(Number(second.headers.get("x-ratelimit-remaining"))).toBe(
      Number(first.headers.get("x-ratelimit-remaining")) - 1,
    );
    const otherKey = await demoKey(h, { scopes: ["*"] }).api.get("/me");
    expect(otherKey.headers.get("x-ratelimit-remaining")).toBe("299");
  });
});

describe("Scopes", () => {
  const h = useSimulator();

  it("`*` means full access", async () => {
    const project = await createProject(h.api);
    expect(
      (await h.api.post(`/projects/${project.id}/apps`, { name: "w", config: { image: "nginx" } })).status,
    ).toBe(201);
    expect((await h.api.get("/billing/balance")).status).toBe(200);
    expect((await h.api.post<Grid>("/grids", { name: "g" })).status).toBe(201);
  });

  it("a missing scope is 403 insufficient_scope naming requiredScopes", async () => {
    const reader = demoKey(h, { scopes: ["projects:read"] }).api;
    const error = expectError(await reader.post("/projects", { name: "x" }), 403, "insufficient_scope");
    expect(error.requiredScopes).toEqual(["projects:write"]);
  });

  it("1. within a family admin includes write and read, and write includes read", async () => {
    const admin = demoKey(h, { scopes: ["projects:admin"] }).api;
    expect((await admin.post("/projects", { name: "a" })).status).toBe(201);
    expect((await admin.get("/projects")).status).toBe(200);
    const writer = demoKey(h, { scopes: ["apps:write", "projects:read"] }).api;
    const project = await createProject(h.api);
    const app = await createApp(h.api, project.id);
    expect((await writer.get(`/projects/${project.id}/apps/${app.id}/status`)).status).toBe(200);
    expectError(await writer.delete(`/projects/${project.id}/apps/${app.id}`), 403, "insufficient_scope");
  });

  it("2. compute:spend is separate from every family", async () => {
    const project = await createProject(h.api);
    const admins = demoKey(h, { scopes: ["projects:admin", "apps:admin", "pools:admin"] }).api;
    const error = expectError(
      await admins.post(`/projects/${project.id}/apps`, { name: "w", config: { image: "nginx" } }),
      403,
      "insufficient_scope",
    );
    expect(error.requiredScopes).toEqual(["apps:write", "compute:spend"]);
  });

  it("3. the scope family for grids is named pools", async () => {
    const pools = demoKey(h, { scopes: ["pools:write"] }).api;
    expect((await pools.post<Grid>("/grids", { name: "g" })).status).toBe(201);
    const apps = demoKey(h, { scopes: ["apps:admin"] }).api;
    expect(expectError(await apps.get("/grids"), 403, "insufficient_scope").requiredScopes).toEqual([
      "pools:read",
    ]);
  });

  it("4. creating, starting and restarting apps need compute:spend with apps:write; stopping does not", async () => {
    const project = await createProject(h.api);
    const app = await createApp(h.api, project.id);
    const base = `/projects/${project.id}/apps/${app.id}`;
    const writer = demoKey(h, { scopes: ["apps:write"] }).api;
    expectError(
      await writer.post(`/projects/${project.id}/apps`, { name: "x", config: { image: "a" } }),
      403,
      "insufficient_scope",
    );
    expectError(await writer.post(`${base}/start`), 403, "insufficient_scope");
    expectError(await writer.post(`${base}/restart`), 403, "insufficient_scope");
    expect((await writer.post(`${base}/stop`)).status).toBe(202);
  });

  it("4. app updates that change sizing, instance bounds, volumes or build source need compute:spend", async () => {
    const project = await createProject(h.api);
    const app = await createApp(h.api, project.id);
    const base = `/projects/${project.id}/apps/${app.id}`;
    const writer = demoKey(h, { scopes: ["apps:write"] }).api;
    expect((await writer.patch(base, { config: { ports: [] } })).status).toBe(200);
    for (const config of [
      { instances: { min: 2, max: 3 } },
      { hardware: { cpu: 2 } },
      { volumes: [{ name: "data", mountPath: "/data", sizeGb: 1 }] },
    ]) {
      const error = expectError(await writer.patch(base, { config }), 403, "insufficient_scope");
      expect(error.requiredScopes).toContain("compute:spend");
    }
    // Sending the sizing it already has is not a change.
    expect((await writer.patch(base, { config: { instances: { min: 1, max: 1 } } })).status).toBe(200);
  });

  it("GET /me works with any valid credential and describes the key", async () => {
    const project = await createProject(h.api);
    const narrow = demoKey(h, { scopes: ["billing:read"], projectIds: [project.id] });
    const me = await narrow.api.get<{ apiKey: { id: string; scopes: string[]; projectIds: string[] } }>(
      "/me",
    );
    expect(me.status).toBe(200);
    expect(me.body.apiKey).toEqual({
      id: narrow.keyId,
      scopes: ["billing:read"],
      projectIds: [project.id],
      expiresAt: null,
    });
  });
});

describe("Resource roles (scope checks and role checks are separate)", () => {
  const h = useSimulator();

  async function sharedApp(role: "viewer" | "editor") {
    const project = await createProject(h.api);
    const grid = (await h.api.post<Grid>("/grids", { name: "g" })).body;
    const app = await createApp(h.api, project.id, {
      name: "repo",
      config: {},
      source: { provider: "github", repository: "acme/web", branch: "main" },
    });
    const guest = addUserWithKey(h, { id: `guest-${role}`, scopes: ["*"] });
    h.sim.share({ resourceType: "project", resourceId: project.id, userId: guest.userId, role });
    h.sim.share({ resourceType: "grid", resourceId: grid.id, userId: guest.userId, role });
    return { project, app, grid, guest: guest.api, base: `/projects/${project.id}/apps/${app.id}` };
  }

  it("a viewer can read but not edit", async () => {
    const { guest, base, project } = await sharedApp("viewer");
    expect((await guest.get(base)).status).toBe(200);
    expect((await guest.get<Page<App>>(`/projects/${project.id}/apps`)).body.items).toHaveLength(1);
    const error = expectError(await guest.post(`${base}/stop`), 403, "forbidden");
    expect(error.requiredRole).toBe("editor");
    expectError(await guest.patch(base, { config: { ports: [] } }), 403, "forbidden");
  });

  it("an editor can edit; deletion, renaming, grid targeting and source changes need ownership, even with a * key", async () => {
    const { guest, base, project, grid } = await sharedApp("editor");
    expect((await guest.patch(base, { config: { ports: [] } })).status).toBe(200);
    expect((await guest.post(`${base}/stop`)).status).toBe(202);
    h.sim.advanceClock(30);
    for (const response of [
      await guest.delete(base),
      await guest.patch(`/projects/${project.id}`, { name: "mine" }),
      await guest.delete(`/projects/${project.id}`),
      await guest.patch(base, { config: { gridPriorities: { [grid.id]: 1 } } }),
      await guest.patch(base, { source: { provider: "github", repository: "acme/other", branch: "main" } }),
      await guest.delete(`/grids/${grid.id}`),
    ]) {
      expect(expectError(response, 403, "forbidden").requiredRole).toBe("owner");
    }
  });

  it("a user without a role on the resource sees 404", async () => {
    const { base } = await sharedApp("editor");
    const stranger = addUserWithKey(h, { id: "stranger", scopes: ["*"] });
    expectError(await stranger.api.get(base), 404, "not_found");
  });

  it("the owner may do all of it", async () => {
    const project = await createProject(h.api);
    const grid = (await h.api.post<Grid>("/grids", { name: "g" })).body;
    const app = await createApp(h.api, project.id);
    const base = `/projects/${project.id}/apps/${app.id}`;
    expect((await h.api.patch(base, { config: { gridPriorities: { [grid.id]: 5 } } })).status).toBe(200);
    expect((await h.api.patch(`/projects/${project.id}`, { name: "renamed" })).status).toBe(200);
  });
});

describe("Authentication and permission errors", () => {
  const h = useSimulator();

  it("403 account_frozen: a frozen account cannot change anything, but can still read", async () => {
    const project = await createProject(h.api);
    h.sim.freeze("usr_demo");
    expectError(await h.api.post("/projects", { name: "x" }), 403, "account_frozen");
    expectError(await h.api.delete(`/projects/${project.id}`), 403, "account_frozen");
    expect((await h.api.get(`/projects/${project.id}`)).status).toBe(200);
    expect((await h.api.get("/me")).status).toBe(200);
    h.sim.freeze("usr_demo", false);
    expect((await h.api.post("/projects", { name: "x" })).status).toBe(201);
  });
});
