import { describe, expect, it } from "vitest";
import { collect, uniqueName, useSimulator } from "./support.ts";

// Every typed method once against the simulator: each response must parse with the client's schema
// (a mismatch would be a response_invalid error). A frozen clock, moved by hand, drives the lifecycle.
// It deploys from a repository source, whose field names the spec doesn't show.
const sim = useSimulator({
  clock: { start: "2030-01-15T00:00:00Z", frozen: true },
  profile: { base: "harsh", sampleValues: true },
});

describe("every operation's response parses", () => {
  it("projects, apps, lifecycle, logs and usage", async () => {
    const { client } = sim.account();
    const me = await client.getMe();
    expect(me.apiKey?.scopes).toEqual(["*"]);

    const project = await client.createProject(
      { name: uniqueName("proj") },
      { idempotencyKey: uniqueName("k") },
    );
    expect((await client.getProject(project.id)).id).toBe(project.id);
    expect((await client.renameProject(project.id, "renamed")).name).toBe("renamed");
    // Pages may be short or empty and still carry a cursor: read them all.
    const projects = await collect((cursor) => client.listProjects({ cursor }));
    expect(projects.map((p) => p.id)).toContain(project.id);

    const app = await client.createApp(
      project.id,
      {
        name: "web",
        config: { image: "nginx:1.27", ports: [{ port: 80, protocol: "http80_load_balancer" }] },
      },
      { idempotencyKey: uniqueName("k") },
    );
    expect(app.start?.state).toBe("requested");
    expect((await client.getApp(project.id, app.id)).config.image).toBe("nginx:1.27");
    const patched = await client.patchApp(project.id, app.id, { config: { instances: { min: 1, max: 2 } } });
    expect(patched.config.instances).toEqual({ min: 1, max: 2 });

    sim.sim.advanceClock(30);
    const running = await client.getAppStatus(project.id, app.id);
    expect(running.state).toBe("running");
    expect(running.endpoints[0]?.address).toMatch(/^https:\/\//);
    await client.restartApp(project.id, app.id);
    expect(await client.getAppLogs(project.id, app.id, { maxBytes: 1024 })).toMatchObject({
      truncated: expect.any(Boolean),
    });
    expect((await client.getAppUsage(project.id, app.id)).appId).toBe(app.id);

    // A 202 promises no body: the client hands back the response's metadata.
    expect((await client.stopApp(project.id, app.id)).status).toBe(202);
    sim.sim.advanceClock(30);
    expect((await client.getAppStatus(project.id, app.id)).state).toBe("stopped");
    expect((await client.startApp(project.id, app.id)).status).toBe(202);
    expect((await client.getAppStatus(project.id, app.id)).targetState).toBe("running");
    await client.stopApp(project.id, app.id);
    sim.sim.advanceClock(30);
    expect((await client.deleteApp(project.id, app.id)).status).toBe(204);
    expect((await client.deleteProject(project.id)).status).toBe(204);
  });

  it("builds of a repository app", async () => {
    const { client } = sim.account();
    const project = await client.createProject(
      { name: uniqueName("proj") },
      { idempotencyKey: uniqueName("k") },
    );
    const app = await client.createApp(
      project.id,
      { name: "api", config: {}, source: { provider: "github", repository: "acme/api", branch: "main" } },
      { idempotencyKey: uniqueName("k") },
    );
    expect(app.buildId).toBeDefined();
    const build = await client.getBuild(app.buildId ?? "");
    // pollAfterSec is a hint the service may leave out.
    expect(build.pollAfterSec === undefined || (build.pollAfterSec ?? 0) > 0).toBe(true);
    sim.sim.advanceClock(30);
    expect((await client.getBuild(build.id)).state).toBe("succeeded");
    expect((await client.getBuildLogs(build.id)).lines).toBeGreaterThan(0);
    expect((await client.triggerBuild(project.id, app.id)).status).toBe(202);
    expect((await client.getApp(project.id, app.id)).buildId).not.toBe(build.id);
  });

  it("grids, catalog, provisioning, servers and orders", async () => {
    const { client } = sim.account({ balance: 1_000 });
    const grid = await client.createGrid({ name: uniqueName("grid") }, { idempotencyKey: uniqueName("k") });
    const named = await client.getGrid(grid.id);
    expect(named.name).toMatch(/^grid-/);
    const listed = await collect((cursor) => client.listGrids({ cursor }));
    expect(listed.map((g) => g.id)).toContain(grid.id);

    const region = (await client.listRegions()).items[0];
    const zone = (await client.listZones({ region: region?.id })).items.find((z) => z.available);
    const type = (await client.listInstanceTypes({ region: region?.id, csp: "native" })).items[0];
    const order = { region: region?.id ?? "", zone: zone?.id ?? "", instanceType: type?.id ?? "", count: 2 };

    const estimate = await client.estimateServers(order, { idempotencyKey: uniqueName("dry") });
    expect(estimate.estimate.count).toBe(2);
    const placed = await client.orderServers(
      { ...order, gridIds: [grid.id] },
      { idempotencyKey: uniqueName("real") },
    );
    sim.sim.advanceClock(60);
    expect((await client.getOrder(placed.id)).state).toBe("completed");
    const orders = await collect((cursor) => client.listOrders({ cursor }));
    expect(orders.map((o) => o.id)).toContain(placed.id);

    const servers = await collect((cursor) =>
      client.listServers({ orderId: placed.id, gridId: [grid.id], cursor }),
    );
    expect(servers).toHaveLength(2);
    const [first, second] = servers.map((s) => s.address);
    expect((await client.getServer(first ?? "")).state).toBe("running");
    expect((await client.powerServers({ addresses: [first ?? ""], action: "reboot" })).status).toBe(202);
    expect((await client.getServer(first ?? "")).state).toBe("rebooting");
    const replaced = await client.replaceServer(second ?? "", {}, { idempotencyKey: uniqueName("k") });
    expect(replaced.replacedAddress).toBe(second);
    sim.sim.advanceClock(60);
    await expect(client.deleteGrid(grid.id)).rejects.toMatchObject({ code: "grid_in_use", status: 409 });
    const inGrid = await collect((cursor) => client.listServers({ gridId: [grid.id], cursor }));
    const gone = await client.deprovisionServers({ addresses: inGrid.map((s) => s.address), confirm: true });
    expect(gone.status).toBe(202);
    expect((await client.getServer(first ?? "")).state).toBe("deprovisioning");
    sim.sim.advanceClock(60);
    expect((await client.deleteGrid(grid.id)).status).toBe(204);
  });

  it("billing", async () => {
    const { client } = sim.account({ balance: 42 });
    expect(await client.getBalance()).toMatchObject({ balance: "42.0000", currency: "USD" });
    expect((await client.getCosts()).currency).toBe("USD");
    const invoices = await collect((cursor) => client.listInvoices({ cursor }));
    expect(invoices.length).toBeGreaterThan(0);
    expect((await client.getInvoice(invoices[0]?.number ?? "")).number).toBe(invoices[0]?.number);
  });
});
