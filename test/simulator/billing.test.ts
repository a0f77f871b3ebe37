import { describe, expect, it } from "vitest";
import { parseMoney } from "../../src/simulator/store/money.ts";
import { type App, createApp, createProject, type Page, type Server, useSimulator } from "./support.ts";

// Billing adds up: the items of GET /billing/costs sum to its total exactly, the balance falls by
// exactly that total, and what the service says each resource costs now (app status and server
// records) is what it then accrues.

interface Costs {
  currency: string;
  total: string;
  items: { date: string; resourceType: string; resourceId: string; amount: string }[];
}

const micros = (text: string | undefined): number => {
  const value = parseMoney(text ?? "");
  if (value === undefined) throw new Error(`not a decimal: ${text}`);
  return value;
};

const small = { region: "eu-central", zone: "eu-central-1a", instanceType: "native.small" };

describe("Billing adds up", () => {
  const h = useSimulator();

  async function costs(): Promise<Costs> {
    return (await h.api.get<Costs>("/billing/costs?from=2030-01-01&to=2030-01-31")).body;
  }
  async function balance(): Promise<number> {
    return micros((await h.api.get<{ balance: string }>("/billing/balance")).body.balance);
  }
  async function appHourly(app: App): Promise<string> {
    const status = await h.api.get<{ currentHourlyCost: string; currency: string }>(
      `/projects/${app.projectId}/apps/${app.id}/status`,
    );
    expect(status.body.currency).toBe("USD");
    return status.body.currentHourlyCost;
  }

  it("two apps and a two-server order: items sum to the total and the balance, each resource at its stated rate", async () => {
    const project = await createProject(h.api);
    const small1 = await createApp(h.api, project.id, { name: "one" });
    const big = await createApp(h.api, project.id, {
      name: "two",
      config: {
        image: "nginx:1.27",
        ports: [],
        instances: { min: 2, max: 2 },
        hardware: { cpu: 1, memoryMb: 200 },
      },
    });
    await h.api.post(
      "/servers/provision",
      { ...small, count: 2, dryRun: false },
      {
        headers: { "idempotency-key": "order-two" },
      },
    );
    h.sim.advanceClock(60);
    const start = await balance();
    const before = await costs();
    const rates = new Map<string, number>([
      [small1.id, micros(await appHourly(small1))],
      [big.id, micros(await appHourly(big))],
    ]);
    const servers = (await h.api.get<Page<Server & { currentHourlyCost: string }>>("/servers")).body.items;
    expect(servers).toHaveLength(2);
    for (const s of servers) rates.set(s.address, micros(s.currentHourlyCost));
    expect(rates.get(small1.id)).toBe(12_000);
    // 2 nodes × (1 CPU + 200 MB): 2 × (20000 + 781.25 → 781).
    expect(rates.get(big.id)).toBe(41_562);

    // Ten simulated minutes in uneven steps, so fractions of a micro-unit have to carry.
    for (const step of [7, 61, 113, 19, 400]) {
      h.sim.advanceClock(step);
      await balance();
    }
    const after = await costs();
    const spent = (c: Costs, id: string) =>
      c.items.filter((i) => i.resourceId === id).reduce((sum, i) => sum + micros(i.amount), 0);
    for (const [id, rate] of rates) {
      // Each item is charged in whole micro-units, at most one short of the exact accrual.
      const accrued = spent(after, id) - spent(before, id);
      expect(Math.abs(accrued - rate / 6)).toBeLessThanOrEqual(1);
    }
    expect(after.items.reduce((sum, i) => sum + micros(i.amount), 0)).toBe(micros(after.total));
    expect(start - (await balance())).toBe(micros(after.total) - micros(before.total));
  });

  it("a hibernated server's current cost is its disk, and that is what accrues", async () => {
    await h.api.post(
      "/servers/provision",
      { ...small, count: 1, dryRun: false },
      {
        headers: { "idempotency-key": "order-one" },
      },
    );
    h.sim.advanceClock(60);
    const address = (await h.api.get<Page<Server>>("/servers")).body.items[0]?.address;
    await h.api.post("/servers/power", { addresses: [address], action: "hibernate" });
    h.sim.advanceClock(60);
    const server = (
      await h.api.get<Server & { hourlyCost: string; currentHourlyCost: string }>(`/servers/${address}`)
    ).body;
    expect(server).toMatchObject({ state: "hibernated", hourlyCost: "0.0520", currentHourlyCost: "0.0052" });
    const start = await balance();
    h.sim.advanceClock(3600);
    expect(start - (await balance())).toBe(5_200);
  });

  it("a stopped app costs nothing now", async () => {
    const project = await createProject(h.api);
    const app = await createApp(h.api, project.id);
    h.sim.advanceClock(60);
    expect(await appHourly(app)).toBe("0.0120");
    await h.api.post(`/projects/${app.projectId}/apps/${app.id}/stop`, {});
    h.sim.advanceClock(60);
    expect(await appHourly(app)).toBe("0.0000");
  });
});
