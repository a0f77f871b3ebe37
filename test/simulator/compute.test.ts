import { describe, expect, it } from "vitest";
import {
  addUserWithKey,
  createApp,
  createProject,
  expectError,
  type Grid,
  type Order,
  type Page,
  type Server,
  useSimulator,
} from "./support.ts";

// hosting-api.md: dedicated servers and grids ("What the service does" 4, MCP "Rules of use" 3–5
// as seen over REST), the catalog, billing ("What the service does" 3, 5), and identifiers.

const small = { region: "eu-central", zone: "eu-central-1a", instanceType: "native.small" };

describe("Dedicated compute: order, poll, verify", () => {
  const h = useSimulator();

  async function order(count: number, extra: Record<string, unknown> = {}): Promise<Order> {
    const response = await h.api.post<Order>("/servers/provision", {
      ...small,
      count,
      dryRun: false,
      ...extra,
    });
    expect(response.status).toBe(202);
    return response.body;
  }

  it("the catalog lists regions, zones and instance types with hourly prices", async () => {
    const regions = (await h.api.get<Page<{ id: string; csps: string[] }>>("/catalog/regions")).body;
    expect(regions.items.map((r) => r.id)).toEqual(["eu-central", "us-east", "ap-southeast"]);
    expect(regions.nextCursor).toBeNull();
    const zones = (await h.api.get<Page<{ id: string; regionId: string }>>("/catalog/zones?region=us-east"))
      .body;
    expect(zones.items.every((z) => z.regionId === "us-east")).toBe(true);
    const types = (
      await h.api.get<Page<{ id: string; csp: string; hourlyPrice: string }>>(
        "/catalog/instance-types?csp=native",
      )
    ).body;
    expect(types.items.find((t) => t.id === "native.small")).toMatchObject({
      csp: "native",
      hourlyPrice: "0.0520",
    });
    expect(types.items.every((t) => /^\d+\.\d{4}$/.test(t.hourlyPrice))).toBe(true);
  });

  it("a dry run returns 200 with an estimate and orders nothing", async () => {
    const dry = await h.api.post("/servers/provision", { ...small, count: 3, dryRun: true });
    expect(dry.status).toBe(200);
    expect(dry.body).toEqual({
      estimate: {
        hourlyCost: "0.1560",
        perServerHourlyCost: "0.0520",
        currency: "USD",
        count: 3,
        csp: "native",
        ...small,
      },
    });
    expect((await h.api.get<Page<Order>>("/servers/orders")).body.items).toEqual([]);
  });

  it("a real order (202) progresses to servers with 0x+40-hex addresses joined to its grids", async () => {
    const grid = (await h.api.post<Grid>("/grids", { name: "pool" })).body;
    expect(grid.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const placed = await order(2, { gridIds: [grid.id] });
    expect(placed).toMatchObject({ state: "pending", servers: [], error: null });
    expect(placed.id).toMatch(/^ord_/);
    h.sim.advanceClock(4);
    const provisioning = (await h.api.get<Order>(`/servers/orders/${placed.id}`)).body;
    expect(provisioning.state).toBe("provisioning");
    expect(provisioning.servers).toHaveLength(2);
    h.sim.advanceClock(16);
    const done = (await h.api.get<Order>(`/servers/orders/${placed.id}`)).body;
    expect(done.state).toBe("completed");
    const servers = (await h.api.get<Page<Server>>(`/servers?orderId=${placed.id}`)).body.items;
    expect(servers.map((s) => s.address)).toEqual(done.servers);
    for (const server of servers) {
      expect(server.address).toMatch(/^0x[0-9a-f]{40}$/);
      expect(server).toMatchObject({ state: "running", gridIds: [grid.id], orderId: placed.id });
    }
    expect((await h.api.get<Page<Server>>(`/servers?gridId=${grid.id}`)).body.items).toHaveLength(2);
    expect((await h.api.get<Server>(`/servers/${servers[0]?.address}`)).body).toEqual(servers[0]);
  });

  it("an order fails when the zone has no capacity, or when the provider fails", async () => {
    h.sim.setCapacity("eu-central-1a", false);
    const noCapacity = await order(1);
    h.sim.advanceClock(4);
    h.sim.setCapacity("eu-central-1a", true);
    h.sim.failNextOrder();
    const broken = await order(1);
    h.sim.advanceClock(20);
    expect((await h.api.get<Order>(`/servers/orders/${noCapacity.id}`)).body).toMatchObject({
      state: "failed",
      servers: [],
      error: { code: "capacity_unavailable" },
    });
    expect((await h.api.get<Order>(`/servers/orders/${broken.id}`)).body.error?.code).toBe("provider_error");
  });

  it("hibernate, wake and reboot are one power operation; wake can fail when the provider has no capacity", async () => {
    const placed = await order(1);
    h.sim.advanceClock(20);
    const address = (await h.api.get<Order>(`/servers/orders/${placed.id}`)).body.servers[0];
    const power = (action: string) =>
      h.api.post<{ items: { address: string; state: string; error: { code: string } | null }[] }>(
        "/servers/power",
        {
          addresses: [address],
          action,
        },
      );
    expect((await power("hibernate")).body.items).toEqual([{ address, state: "hibernating", error: null }]);
    h.sim.advanceClock(3);
    expect((await h.api.get<Server>(`/servers/${address}`)).body.state).toBe("hibernated");
    expect((await power("reboot")).body.items[0]?.error?.code).toBe("invalid_state");
    h.sim.setCapacity("eu-central-1a", false);
    const refused = await power("wake");
    expect(refused.status).toBe(202);
    expect(refused.body.items[0]).toMatchObject({
      state: "hibernated",
      error: { code: "capacity_unavailable" },
    });
    h.sim.setCapacity("eu-central-1a", true);
    expect((await power("wake")).body.items[0]).toMatchObject({ state: "waking", error: null });
    h.sim.advanceClock(3);
    expect((await power("reboot")).body.items[0]?.state).toBe("rebooting");
    h.sim.advanceClock(3);
    expect((await h.api.get<Server>(`/servers/${address}`)).body.state).toBe("running");
  });

  it("replacement retires the old machine and orders a new one in the same place and grids", async () => {
    const grid = (await h.api.post<Grid>("/grids", { name: "pool" })).body;
    await order(1, { gridIds: [grid.id] });
    h.sim.advanceClock(20);
    const old = (await h.api.get<Page<Server>>("/servers")).body.items[0];
    const replaced = await h.api.post<{ replacedAddress: string; order: Order }>(
      `/servers/${old?.address}/replace`,
      {},
    );
    expect(replaced.status).toBe(202);
    expect(replaced.body.replacedAddress).toBe(old?.address);
    expect((await h.api.get<Server>(`/servers/${old?.address}`)).body.state).toBe("retiring");
    h.sim.advanceClock(20);
    const servers = (await h.api.get<Page<Server>>("/servers")).body.items;
    expect(servers.map((s) => s.address)).toEqual(
      (await h.api.get<Order>(`/servers/orders/${replaced.body.order.id}`)).body.servers,
    );
    expect(servers[0]).toMatchObject({ gridIds: [grid.id], zone: "eu-central-1a", state: "running" });
  });

  it("deprovisioning requires confirm: true", async () => {
    await order(1);
    h.sim.advanceClock(20);
    const address = (await h.api.get<Page<Server>>("/servers")).body.items[0]?.address;
    expectError(
      await h.api.post("/servers/deprovision", { addresses: [address] }),
      400,
      "confirmation_required",
    );
    expectError(
      await h.api.post("/servers/deprovision", { addresses: [address], confirm: false }),
      400,
      "confirmation_required",
    );
    const accepted = await h.api.post("/servers/deprovision", { addresses: [address], confirm: true });
    expect(accepted.status).toBe(202);
    expect(accepted.body).toEqual({ items: [{ address, state: "deprovisioning" }] });
    h.sim.advanceClock(3);
    expect((await h.api.get<Page<Server>>("/servers")).body.items).toEqual([]);
    expectError(await h.api.get(`/servers/${address}`), 404, "not_found");
  });

  it("servers and orders of another user are not visible", async () => {
    const placed = await order(1);
    h.sim.advanceClock(20);
    const other = addUserWithKey(h, { id: "other" }).api;
    expect((await other.get<Page<Server>>("/servers")).body.items).toEqual([]);
    expectError(await other.get(`/servers/orders/${placed.id}`), 404, "not_found");
  });
});

describe("Grids", () => {
  const h = useSimulator();

  it("create (201, GUID), read, list by name, and delete (servers leave the grid)", async () => {
    const created = await h.api.post<Grid>("/grids", { name: "pool", description: "batch" });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: "pool", description: "batch" });
    const grid = created.body;
    const upper = expectError(await h.api.get(`/grids/${grid.id.toUpperCase()}`), 400, "validation_failed");
    expect(upper.message).toMatch(/lowercase, exactly as the service returned it/);
    expect((await h.api.get<Page<Grid>>("/grids?name=pool")).body.items).toEqual([grid]);
    await h.api.post("/servers/provision", { ...small, count: 1, dryRun: false, gridIds: [grid.id] });
    h.sim.advanceClock(20);
    expect((await h.api.delete(`/grids/${grid.id}`)).status).toBe(204);
    expectError(await h.api.get(`/grids/${grid.id}`), 404, "not_found");
    expect((await h.api.get<Page<Server>>("/servers")).body.items[0]?.gridIds).toEqual([]);
  });

  it("joining servers to a grid needs ownership of the grid", async () => {
    const grid = (await h.api.post<Grid>("/grids", { name: "pool" })).body;
    const editor = addUserWithKey(h, { id: "editor" });
    h.sim.share({ resourceType: "grid", resourceId: grid.id, userId: editor.userId, role: "editor" });
    const response = await editor.api.post("/servers/provision", {
      ...small,
      count: 1,
      dryRun: true,
      gridIds: [grid.id],
    });
    expectError(response, 403, "forbidden");
  });
});

describe("Billing", () => {
  const h = useSimulator();

  it("the balance is a decimal string, consumed by running apps and servers", async () => {
    expect((await h.api.get("/billing/balance")).body).toEqual({ balance: "100.0000", currency: "USD" });
    const project = await createProject(h.api);
    await createApp(h.api, project.id);
    await h.api.post("/servers/provision", { ...small, count: 1, dryRun: false });
    h.sim.advanceClock(20);
    h.sim.advanceClock(3600);
    // One hour of one app node (0.012/h) and one native.small server (0.052/h), plus 17 s of the app before.
    const balance = (await h.api.get<{ balance: string }>("/billing/balance")).body.balance;
    expect(Number(balance)).toBeCloseTo(100 - 0.012 - 0.052 - (0.012 * 17) / 3600, 4);
  });

  it("hibernated servers keep paying for their disk (a tenth of the price)", async () => {
    await h.api.post("/servers/provision", { ...small, count: 1, dryRun: false });
    h.sim.advanceClock(20);
    const address = (await h.api.get<Page<Server>>("/servers")).body.items[0]?.address;
    await h.api.post("/servers/power", { addresses: [address], action: "hibernate" });
    const before = Number((await h.api.get<{ balance: string }>("/billing/balance")).body.balance);
    h.sim.advanceClock(3600);
    const after = Number((await h.api.get<{ balance: string }>("/billing/balance")).body.balance);
    expect(before - after).toBeCloseTo(0.0052, 4);
  });

  it("costs list spending per day and resource", async () => {
    const project = await createProject(h.api);
    const app = await createApp(h.api, project.id);
    h.sim.advanceClock(3 + 24 * 3600);
    const costs = (
      await h.api.get<{ total: string; items: { date: string; resourceId: string; amount: string }[] }>(
        "/billing/costs?from=2030-01-01&to=2030-01-31",
      )
    ).body;
    expect(costs.items.map((c) => [c.date, c.resourceId])).toEqual([
      ["2030-01-15", app.id],
      ["2030-01-16", app.id],
    ]);
    expect(Number(costs.total)).toBeCloseTo(0.012 * 24, 3);
    expectError(await h.api.get("/billing/costs?from=2030-02-01&to=2030-01-01"), 400, "validation_failed");
  });

  it("invoices: one per month, the current one open; closed months are issued", async () => {
    h.sim.advanceClock(40 * 24 * 3600);
    const invoices = (
      await h.api.get<Page<{ number: string; period: string; status: string }>>("/billing/invoices")
    ).body.items;
    expect(invoices.map((i) => [i.number, i.period, i.status])).toEqual([
      ["INV-203001-0001", "2030-01", "issued"],
      ["INV-203002-0001", "2030-02", "open"],
    ]);
    expect((await h.api.get(`/billing/invoices/${invoices[0]?.number}`)).status).toBe(200);
    expectError(await h.api.get("/billing/invoices/INV-202901-0001"), 404, "not_found");
  });

  it("402 insufficient_balance refuses a real order while the balance is used up (a dry run still works)", async () => {
    h.sim.setBalance("usr_demo", 0);
    expect((await h.api.post("/servers/provision", { ...small, count: 1, dryRun: true })).status).toBe(200);
    expectError(
      await h.api.post("/servers/provision", { ...small, count: 1, dryRun: false }),
      402,
      "insufficient_balance",
    );
  });
});
