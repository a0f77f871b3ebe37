import { describe, expect, it } from "vitest";
import { expectError, type Order, type Page, type Server, useSimulator } from "./support.ts";

// The spec names no server states; the harsh reading is that new ones show up. A server fails only
// when the control API says so, and stays failed until it is replaced or deprovisioned.

const small = { region: "eu-central", zone: "eu-central-1a", instanceType: "native.small" };

describe("A failed server", () => {
  const h = useSimulator();

  async function running(): Promise<string> {
    const placed = await h.api.post<Order>("/servers/provision", { ...small, count: 1, dryRun: false });
    expect(placed.status).toBe(202);
    h.sim.advanceClock(20);
    return (await h.api.get<Page<Server>>("/servers")).body.items[0]?.address ?? "";
  }

  it("is failed after POST /_sim/servers/{address}/fail, costs nothing, can't be powered, never heals", async () => {
    const address = await running();
    const failed = await fetch(`${h.simulator.controlUrl}/servers/${address}/fail`, { method: "POST" });
    expect(failed.status).toBe(204);
    expect((await h.api.get<Server>(`/servers/${address}`)).body).toMatchObject({ state: "failed" });
    const reboot = await h.api.post<{ items: { error: { code: string } | null }[] }>("/servers/power", {
      addresses: [address],
      action: "reboot",
    });
    expect(reboot.body.items[0]?.error?.code).toBe("invalid_state");
    h.sim.advanceClock(3600);
    expect((await h.api.get<Server>(`/servers/${address}`)).body.state).toBe("failed");
    const unknown = await fetch(`${h.simulator.controlUrl}/servers/0x${"0".repeat(40)}/fail`, {
      method: "POST",
    });
    expect(unknown.status).toBe(404);
  });

  it("is replaced like a running one: retired, and a one-server order takes its place", async () => {
    const address = await running();
    h.sim.failServer(address);
    const replaced = await h.api.post<{ replacedAddress: string; order: Order }>(
      `/servers/${address}/replace`,
      {},
    );
    expect(replaced.status).toBe(202);
    expect((await h.api.get<Server>(`/servers/${address}`)).body.state).toBe("retiring");
    h.sim.advanceClock(20);
    const servers = (await h.api.get<Page<Server>>("/servers")).body.items;
    expect(servers).toEqual([expect.objectContaining({ orderId: replaced.body.order.id, state: "running" })]);
  });

  it("a server in transition is still not replaceable", async () => {
    const address = await running();
    await h.api.post("/servers/power", { addresses: [address], action: "hibernate" });
    expectError(await h.api.post(`/servers/${address}/replace`, {}), 409, "invalid_state");
  });
});

describe("A repriced server", () => {
  const h = useSimulator();

  it("is charged its new price from then on, running or hibernated, after PUT /_sim/servers/{address}/price", async () => {
    const placed = await h.api.post<Order>("/servers/provision", { ...small, count: 1, dryRun: false });
    expect(placed.status).toBe(202);
    h.sim.advanceClock(20);
    const address = (await h.api.get<Page<Server>>("/servers")).body.items[0]?.address ?? "";
    const priced = await fetch(`${h.simulator.controlUrl}/servers/${address}/price`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ hourlyPrice: "0.0800" }),
    });
    expect([priced.status, await priced.json()]).toEqual([200, { hourlyPrice: "0.0800" }]);
    expect((await h.api.get<Server>(`/servers/${address}`)).body).toMatchObject({
      hourlyCost: "0.0800",
      currentHourlyCost: "0.0800",
    });
    await h.api.post("/servers/power", { addresses: [address], action: "hibernate" });
    h.sim.advanceClock(20);
    expect((await h.api.get<Server>(`/servers/${address}`)).body).toMatchObject({
      currentHourlyCost: "0.0080",
    });
    expect(() => h.sim.repriceServer(`0x${"0".repeat(40)}`, 1)).toThrow();
  });
});
