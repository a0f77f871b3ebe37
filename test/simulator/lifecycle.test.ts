import { describe, expect, it } from "vitest";
import {
  type App,
  type Build,
  createApp,
  createProject,
  expectError,
  type Grid,
  type Logs,
  type Order,
  status,
  useSimulator,
} from "./support.ts";

// hosting-api.md, "States and transitions", "Asynchronous operations", "App update semantics",
// "Log export"; timings are the defaults (build 8 s, start 3 s, wire 1 s, stop 2 s, order 20 s).

const repoSource = { provider: "github", repository: "acme/web", branch: "main" };

describe("States and transitions", () => {
  const h = useSimulator();

  it("creating an image app returns 201 with start.state requested; it provisions, runs, then gets an address", async () => {
    const project = await createProject(h.api);
    const app = await createApp(h.api, project.id);
    expect(app.start).toEqual({ state: "requested" });
    expect(app.id).toMatch(/^[0-9a-f]{24}$/);
    let current = await status(h.api, app);
    expect(current).toMatchObject({ state: "provisioning", targetState: "running", errors: [] });
    expect(current.endpoints).toEqual([{ port: 80, protocol: "http80_load_balancer", address: null }]);
    h.sim.advanceClock(3);
    current = await status(h.api, app);
    expect(current.state).toBe("running");
    expect(current.nodes).toEqual([{ id: expect.any(String), state: "running" }]);
    expect(current.endpoints[0]?.address).toBeNull();
    h.sim.advanceClock(1);
    expect((await status(h.api, app)).endpoints[0]?.address).toMatch(
      /^https:\/\/web-[0-9a-f]{8}\.apps\.sim\.berth\.dev$/,
    );
  });

  it("a repository app returns buildId and start.state building; a successful build leads to running", async () => {
    const project = await createProject(h.api);
    const app = await createApp(h.api, project.id, { name: "repo", config: {}, source: repoSource });
    expect(app.start).toEqual({ state: "building" });
    expect(app.buildId).toMatch(/^bld_/);
    expect(app.config.image).toBeUndefined();
    const build = async () => (await h.api.get<Build>(`/builds/${app.buildId}`)).body;
    expect((await build()).state).toBe("queued");
    expect((await status(h.api, app)).state).toBe("building");
    h.sim.advanceClock(2);
    expect((await build()).state).toBe("running");
    h.sim.advanceClock(6);
    expect(await build()).toMatchObject({ state: "succeeded", failedStep: null, pollAfterSec: null });
    expect((await status(h.api, app)).state).toBe("provisioning");
    h.sim.advanceClock(3);
    expect((await status(h.api, app)).state).toBe("running");
  });

  it("a failed build leaves the app in build_failed; the failed step and build logs tell why", async () => {
    h.sim.failNextBuild({ step: "install" });
    const project = await createProject(h.api);
    const app = await createApp(h.api, project.id, { name: "repo", config: {}, source: repoSource });
    h.sim.advanceClock(8);
    const build = (await h.api.get<Build>(`/builds/${app.buildId}`)).body;
    expect(build).toMatchObject({ state: "failed", failedStep: "install" });
    const current = await status(h.api, app);
    expect(current.state).toBe("build_failed");
    expect(current.errors.map((e) => e.code)).toEqual(["build_failed"]);
    const logs = (await h.api.get<Logs>(`/builds/${app.buildId}/logs`)).body;
    expect(logs.text).toMatch(/\[install\] ERROR: step install failed/);
    // A new build (not idempotent) recovers it.
    const next = await h.api.post<Build>(`/projects/${project.id}/apps/${app.id}/builds`);
    expect(next.body.id).not.toBe(build.id);
    h.sim.advanceClock(11);
    expect((await status(h.api, app)).state).toBe("running");
  });

  it("stop is accepted with 202 and reaches stopped; nodes go and endpoints lose their address", async () => {
    const project = await createProject(h.api);
    const app = await createApp(h.api, project.id);
    h.sim.advanceClock(10);
    const stop = await h.api.post<{ state: string; targetState: string }>(
      `/projects/${project.id}/apps/${app.id}/stop`,
    );
    expect(stop.status).toBe(202);
    expect(stop.body).toEqual({ state: "stopping", targetState: "stopped" });
    h.sim.advanceClock(2);
    const current = await status(h.api, app);
    expect(current).toMatchObject({ state: "stopped", targetState: "stopped", nodes: [] });
    expect(current.endpoints[0]?.address).toBeNull();
  });

  it("app deletion requires the app to be stopped first (409 app_not_stopped)", async () => {
    const project = await createProject(h.api);
    const app = await createApp(h.api, project.id);
    const path = `/projects/${project.id}/apps/${app.id}`;
    const error = expectError(await h.api.delete(path), 409, "app_not_stopped");
    expect(error.state).toBe("provisioning");
    await h.api.post(`${path}/stop`);
    expectError(await h.api.delete(path), 409, "app_not_stopped");
    h.sim.advanceClock(2);
    expect((await h.api.delete(path)).status).toBe(204);
    expectError(await h.api.get(path), 404, "not_found");
  });

  it("project deletion requires its apps to be stopped first", async () => {
    const project = await createProject(h.api);
    const app = await createApp(h.api, project.id);
    expect(expectError(await h.api.delete(`/projects/${project.id}`), 409, "app_not_stopped").appId).toBe(
      app.id,
    );
    await h.api.post(`/projects/${project.id}/apps/${app.id}/stop`);
    h.sim.advanceClock(2);
    expect((await h.api.delete(`/projects/${project.id}`)).status).toBe(204);
    expectError(await h.api.get(`/projects/${project.id}/apps/${app.id}`), 404, "not_found");
  });

  it("with no balance an app is deferred (start.state deferred) and starts once credits arrive", async () => {
    h.sim.setBalance("usr_demo", 0);
    const project = await createProject(h.api);
    const app = await createApp(h.api, project.id);
    expect(app.start).toEqual({ state: "deferred" });
    const current = await status(h.api, app);
    expect(current.state).toBe("deferred");
    expect(current.errors.map((e) => e.code)).toEqual(["insufficient_balance"]);
    const base = `/projects/${project.id}/apps/${app.id}`;
    expect(expectError(await h.api.post(`${base}/start`), 402, "insufficient_balance").balance).toBe(
      "0.0000",
    );
    expectError(await h.api.post(`${base}/restart`), 402, "insufficient_balance");
    h.sim.setBalance("usr_demo", 10);
    expect((await status(h.api, app)).state).toBe("provisioning");
    h.sim.advanceClock(3);
    expect((await status(h.api, app)).state).toBe("running");
  });

  it("running apps consume the balance; when it runs out they are deferred", async () => {
    // One default node costs 0.012/h: 0.001 lasts 5 minutes.
    h.sim.setBalance("usr_demo", "0.001");
    const project = await createProject(h.api);
    const app = await createApp(h.api, project.id);
    h.sim.advanceClock(4 * 60);
    expect((await status(h.api, app)).state).toBe("running");
    h.sim.advanceClock(2 * 60);
    const current = await status(h.api, app);
    expect(current.state).toBe("deferred");
    expect(current.nodes).toEqual([]);
    expect(current.errors.map((e) => e.code)).toEqual(["insufficient_balance"]);
  });

  it("placement that can't be met: start.state failed and start_blocked, until a grid server runs", async () => {
    const project = await createProject(h.api);
    const grid = (await h.api.post<Grid>("/grids", { name: "g" })).body;
    const app = await createApp(h.api, project.id, {
      config: { image: "nginx", gridPriorities: { [grid.id]: 1 } },
    });
    expect(app.start).toEqual({ state: "failed" });
    const blocked = await status(h.api, app);
    expect(blocked.state).toBe("start_blocked");
    expect(blocked.errors.map((e) => e.code)).toEqual(["no_grid_capacity"]);
    await h.api.post<Order>("/servers/provision", {
      dryRun: false,
      region: "eu-central",
      zone: "eu-central-1a",
      instanceType: "native.small",
      count: 1,
      gridIds: [grid.id],
    });
    h.sim.advanceClock(20);
    expect((await status(h.api, app)).state).toBe("provisioning");
    h.sim.advanceClock(3);
    expect((await status(h.api, app)).state).toBe("running");
  });

  it("a zone without capacity blocks placement with placement_unsatisfiable", async () => {
    h.sim.setCapacity("us-east-1a", false);
    const project = await createProject(h.api);
    const app = await createApp(h.api, project.id, {
      config: { image: "nginx", placement: { region: "us-east", zone: "us-east-1a" } },
    });
    const current = await status(h.api, app);
    expect(current.state).toBe("start_blocked");
    expect(current.errors[0]?.code).toBe("placement_unsatisfiable");
    h.sim.setCapacity("us-east-1a", true);
    expect((await status(h.api, app)).state).toBe("provisioning");
  });

  it("a container that keeps exiting ends in start_blocked (check the command); start tries again", async () => {
    h.sim.failNextStart();
    const project = await createProject(h.api);
    const app = await createApp(h.api, project.id);
    h.sim.advanceClock(3);
    const current = await status(h.api, app);
    expect(current.state).toBe("start_blocked");
    expect(current.errors[0]?.message).toMatch(/command/);
    expect((await h.api.post(`/projects/${project.id}/apps/${app.id}/start`)).status).toBe(202);
    h.sim.advanceClock(3);
    expect(await status(h.api, app)).toMatchObject({ state: "running", errors: [] });
  });

  it("start of a running app changes nothing; restart replaces the nodes", async () => {
    const project = await createProject(h.api);
    const app = await createApp(h.api, project.id);
    h.sim.advanceClock(5);
    const before = await status(h.api, app);
    await h.api.post(`/projects/${project.id}/apps/${app.id}/start`);
    expect(await status(h.api, app)).toEqual(before);
    await h.api.post(`/projects/${project.id}/apps/${app.id}/restart`);
    const restarting = await status(h.api, app);
    expect(restarting.state).toBe("provisioning");
    expect(restarting.nodes[0]?.id).not.toBe(before.nodes[0]?.id);
    // Endpoints stay wired through a restart.
    expect(restarting.endpoints[0]?.address).toBe(before.endpoints[0]?.address);
  });
});

describe("Asynchronous operations", () => {
  const h = useSimulator();

  it("a 2xx acceptance does not mean the work is done", async () => {
    const project = await createProject(h.api);
    const app = await createApp(h.api, project.id);
    expect((await status(h.api, app)).state).not.toBe("running");
    h.sim.advanceClock(5);
    await h.api.post(`/projects/${project.id}/apps/${app.id}/stop`);
    expect((await status(h.api, app)).state).toBe("stopping");
  });

  it("builds and orders return pollAfterSec while running and null once finished", async () => {
    const project = await createProject(h.api);
    const app = await createApp(h.api, project.id, { name: "repo", config: {}, source: repoSource });
    const build = (await h.api.get<Build>(`/builds/${app.buildId}`)).body;
    expect(build.pollAfterSec).toBe(8);
    const order = (
      await h.api.post<Order>("/servers/provision", {
        dryRun: false,
        region: "eu-central",
        zone: "eu-central-1a",
        instanceType: "native.small",
        count: 1,
      })
    ).body;
    expect(order).toMatchObject({ state: "pending", pollAfterSec: 10, servers: [] });
    h.sim.advanceClock(15);
    expect((await h.api.get<Order>(`/servers/orders/${order.id}`)).body).toMatchObject({
      state: "provisioning",
      pollAfterSec: 5,
    });
    h.sim.advanceClock(5);
    const done = (await h.api.get<Order>(`/servers/orders/${order.id}`)).body;
    expect(done).toMatchObject({ state: "completed", pollAfterSec: null });
    expect((await h.api.get<Build>(`/builds/${app.buildId}`)).body.pollAfterSec).toBeNull();
  });

  it("a ready endpoint is one with a non-null address", async () => {
    const project = await createProject(h.api);
    const app = await createApp(h.api, project.id, {
      config: {
        image: "redis",
        ports: [
          { port: 80, protocol: "http" },
          { port: 6379, protocol: "tcp" },
        ],
      },
    });
    h.sim.advanceClock(4);
    const endpoints = (await status(h.api, app)).endpoints;
    expect(endpoints.map((e) => e.address)).toEqual([
      expect.stringMatching(/^https:\/\//),
      `tcp://${app.id.slice(0, 8)}.tcp.sim.berth.dev:6379`,
    ]);
  });
});

describe("App update semantics (PATCH)", () => {
  const h = useSimulator();

  async function appWith(config: Record<string, unknown>): Promise<{ app: App; path: string }> {
    const project = await createProject(h.api);
    const app = await createApp(h.api, project.id, { config: { image: "nginx", ...config } });
    return { app, path: `/projects/${project.id}/apps/${app.id}` };
  }

  it("ports, environment variables and volumes: the supplied list replaces the whole list", async () => {
    const { path } = await appWith({
      ports: [
        { port: 80, protocol: "http" },
        { port: 443, protocol: "tcp" },
      ],
      env: [
        { name: "A", value: "1" },
        { name: "B", value: "2" },
      ],
      volumes: [{ name: "data", mountPath: "/data", sizeGb: 1 }],
    });
    const updated = await h.api.patch<App>(path, {
      config: { ports: [{ port: 8080, protocol: "http" }], env: [{ name: "C", value: "3" }], volumes: [] },
    });
    expect(updated.body.config.ports).toEqual([{ port: 8080, protocol: "http" }]);
    expect(updated.body.config.env).toEqual([{ name: "C", value: "3", secret: false }]);
    expect(updated.body.config.volumes).toEqual([]);
  });

  it("hardware and placement are merged by key (null removes a key)", async () => {
    const { path } = await appWith({
      hardware: { cpu: 1, memoryMb: 1024 },
      placement: { region: "eu-central" },
    });
    const updated = await h.api.patch<App>(path, {
      config: { hardware: { memoryMb: 2048, gpu: 1 }, placement: { csp: "native", region: null } },
    });
    expect(updated.body.config.hardware).toEqual({ cpu: 1, memoryMb: 2048, gpu: 1 });
    expect(updated.body.config.placement).toEqual({ csp: "native" });
  });

  it("instance bounds are supplied together", async () => {
    const { path } = await appWith({ instances: { min: 1, max: 2 } });
    const error = expectError(
      await h.api.patch(path, { config: { instances: { min: 2 } } }),
      400,
      "validation_failed",
    );
    expect(error.details?.[0]).toMatchObject({
      path: "config.instances",
      message: expect.stringMatching(/together/),
    });
    const updated = await h.api.patch<App>(path, { config: { instances: { min: 2, max: 4 } } });
    expect(updated.body.config.instances).toEqual({ min: 2, max: 4 });
  });

  it("grid priorities: the supplied map replaces the stored map", async () => {
    const g1 = (await h.api.post<Grid>("/grids", { name: "g1" })).body.id;
    const g2 = (await h.api.post<Grid>("/grids", { name: "g2" })).body.id;
    const { path } = await appWith({ gridPriorities: { [g1]: 1 } });
    const updated = await h.api.patch<App>(path, { config: { gridPriorities: { [g2]: 7 } } });
    expect(updated.body.config.gridPriorities).toEqual({ [g2]: 7 });
  });

  it("secret values are returned as null; sending null keeps the stored secret", async () => {
    const { app, path } = await appWith({
      env: [
        { name: "TOKEN", value: "s3cr3t-value", secret: true },
        { name: "MODE", value: "prod" },
      ],
    });
    expect(app.config.env).toEqual([
      { name: "TOKEN", value: null, secret: true },
      { name: "MODE", value: "prod", secret: false },
    ]);
    const kept = await h.api.patch<App>(path, {
      config: { env: [{ name: "TOKEN", value: null, secret: true }] },
    });
    expect(kept.status).toBe(200);
    expect(kept.body.config.env).toEqual([{ name: "TOKEN", value: null, secret: true }]);
    // null only keeps what is stored: a secret that was never stored needs its value.
    const missing = await h.api.patch(path, {
      config: { env: [{ name: "OTHER", value: null, secret: true }] },
    });
    expect(expectError(missing, 400, "validation_failed").details?.[0]?.path).toBe("config.env[0].value");
    for (const response of [kept, missing, await h.api.get(path)]) {
      expect(JSON.stringify(response.body)).not.toContain("s3cr3t-value");
    }
  });

  it("a config change to a running app redeploys it; a rename does not", async () => {
    const { app, path } = await appWith({});
    h.sim.advanceClock(5);
    await h.api.patch(path, { name: "renamed" });
    expect((await status(h.api, app)).state).toBe("running");
    await h.api.patch(path, { config: { env: [{ name: "A", value: "1" }] } });
    expect((await status(h.api, app)).state).toBe("provisioning");
  });

  it("app names are unique in a project (409 name_taken)", async () => {
    const project = await createProject(h.api);
    await createApp(h.api, project.id, { name: "one" });
    const two = await createApp(h.api, project.id, { name: "two" });
    expectError(
      await h.api.post(`/projects/${project.id}/apps`, { name: "one", config: { image: "a" } }),
      409,
      "name_taken",
    );
    expectError(
      await h.api.patch(`/projects/${project.id}/apps/${two.id}`, { name: "one" }),
      409,
      "name_taken",
    );
  });
});

describe("Log export", () => {
  const h = useSimulator();

  async function runningApp(): Promise<string> {
    const project = await createProject(h.api);
    const app = await createApp(h.api, project.id);
    return `/projects/${project.id}/apps/${app.id}/logs`;
  }

  it("returns JSON {text, lines, truncated}", async () => {
    const path = await runningApp();
    h.sim.advanceClock(60);
    const logs = (await h.api.get<Logs>(path)).body;
    expect(logs.truncated).toBe(false);
    expect(logs.lines).toBe(logs.text.split("\n").length - 1);
    expect(logs.text).toMatch(/state running/);
  });

  it("when truncated, the oldest lines are kept and newer lines are missing", async () => {
    const path = await runningApp();
    h.sim.advanceClock(3600);
    const full = (await h.api.get<Logs>(path)).body;
    const cut = (await h.api.get<Logs>(`${path}?maxBytes=300`)).body;
    expect(cut.truncated).toBe(true);
    expect(Buffer.byteLength(cut.text)).toBeLessThanOrEqual(300);
    expect(full.text.startsWith(cut.text)).toBe(true);
    expect(cut.lines).toBeLessThan(full.lines);
  });

  it("the budget defaults to 1 MiB and accepts at most 4 MiB", async () => {
    const path = await runningApp();
    h.sim.advanceClock(4 * 24 * 3600);
    const byDefault = (await h.api.get<Logs>(path)).body;
    expect(byDefault.truncated).toBe(true);
    const size = Buffer.byteLength(byDefault.text);
    expect(size).toBeLessThanOrEqual(1024 * 1024);
    expect(size).toBeGreaterThan(1024 * 1024 - 200);
    const max = (await h.api.get<Logs>(`${path}?maxBytes=4194304`)).body;
    expect(Buffer.byteLength(max.text)).toBeGreaterThan(size);
    const tooMuch = await h.api.get(`${path}?maxBytes=4194305`);
    expect(expectError(tooMuch, 400, "validation_failed").details?.[0]?.path).toBe("query.maxBytes");
  });
});
