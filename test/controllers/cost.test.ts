import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { parseMoney } from "../../src/simulator/store/money.ts";
import { berthObjects, withCondition } from "../support/berth-objects.ts";
import { kubeConfig, kubeconfigPath } from "../support/kube.ts";
import { serviceHttp } from "../support/service-http.ts";
import { hasCondition, until, useOperatorEnvironment, withSamples } from "./support.ts";

const run = promisify(execFile);

interface Costs {
  total: string;
  items: { resourceType: string; resourceId: string; amount: string }[];
}

const micros = (text: unknown): number => {
  const value = typeof text === "string" ? parseMoney(text) : undefined;
  if (value === undefined) throw new Error(`not a decimal amount: ${JSON.stringify(text)}`);
  return value;
};
const hourlyOf = (object: { status?: Record<string, unknown> } | undefined): string | undefined =>
  (object?.status?.cost as { hourly?: { amount?: string } } | undefined)?.hourly?.amount;

describe("What it costs", () => {
  const env = useOperatorEnvironment(withSamples);
  const objects = berthObjects(kubeConfig(), () => env.namespace);

  it("two Apps and a two-server ServerOrder show the service's hourly cost, which matches its accrual over ten minutes", async () => {
    const account = await env.setUp();
    const service = serviceHttp(env.baseUrl, account.token);
    await env.startOperator();
    await env.create("projects", "shop", {});
    const web = {
      projectRef: { name: "shop" },
      image: "nginx:1.27",
      ports: [{ port: 80, protocol: "http80_load_balancer" }],
    };
    await env.create("apps", "web", web);
    await env.create("apps", "api", {
      ...web,
      instances: { min: 2, max: 2 },
      hardware: { cpu: 1, memoryMb: 2048 },
    });
    await objects.create("serverorders", "batch", {
      csp: "native",
      region: "eu-central",
      zone: "eu-central-1a",
      instanceType: "native.small",
      count: 2,
      approved: true,
      maxHourlyCost: "0.20",
    });
    const costing = (amount: string) => (o: Parameters<ReturnType<typeof hasCondition>>[0]) =>
      hasCondition("Ready")(o) && hourlyOf(o) === amount;
    const web1 = await env.waitFor("apps", "web", costing("0.0120"), 40_000);
    const api1 = await env.waitFor("apps", "api", costing("0.0560"), 40_000);
    await objects.waitFor("serverorders", "batch", withCondition("Ready"));
    await until(async () => hourlyOf(await objects.get("serverorders", "batch")) !== undefined, "order cost");
    const order = await objects.get("serverorders", "batch");

    // What the service says, as berth shows it: 0.012 for one small node, 2 × 0.028, 2 × 0.052 for the servers.
    expect(web1?.status?.cost).toEqual({ hourly: { amount: "0.0120", currency: "USD" } });
    expect(api1?.status?.cost).toEqual({ hourly: { amount: "0.0560", currency: "USD" } });
    expect(order?.status?.cost).toEqual({ hourly: { amount: "0.1040", currency: "USD" } });
    await until(
      async () => hourlyOf(await env.get("projects", "shop")) === "0.0680",
      "project cost = its Apps",
    );

    const table = await run("kubectl", [
      "--kubeconfig",
      kubeconfigPath(),
      "-n",
      env.namespace,
      "get",
      "apps.berth.dev,serverorders.berth.dev",
    ]);
    const lines = table.stdout.split("\n");
    expect(lines[0]).toContain("COST/H");
    expect(lines.find((l) => l.startsWith("app.berth.dev/web "))).toContain("0.0120");
    expect(lines.find((l) => l.startsWith("app.berth.dev/api "))).toContain("0.0560");
    expect(lines.find((l) => l.startsWith("serverorder.berth.dev/batch "))).toContain("0.1040");

    // The service's own accrual per resource over ten simulated minutes, against rate × time.
    const ids = new Map<string, string>([
      [String(web1?.status?.appId), "0.0120"],
      [String(api1?.status?.appId), "0.0560"],
    ]);
    const servers = await service.items<{ address: string }>(`/servers?orderId=${order?.status?.orderId}`);
    for (const s of servers) ids.set(s.address, "0.0520");
    const spentBy = (c: Costs, id: string) =>
      c.items.filter((i) => i.resourceId === id).reduce((sum, i) => sum + micros(i.amount), 0);
    const t0 = env.sim.now().getTime();
    const before = (await service.get<Costs>("/billing/costs")).body;
    const t0b = env.sim.now().getTime();
    env.sim.advanceClock(600);
    const t1 = env.sim.now().getTime();
    const after = (await service.get<Costs>("/billing/costs")).body;
    const t1b = env.sim.now().getTime();
    for (const [id, hourly] of ids) {
      const accrued = spentBy(after, id) - spentBy(before, id);
      const rate = micros(hourly) / 3_600_000;
      expect(accrued, id).toBeGreaterThanOrEqual(Math.floor(rate * (t1 - t0b)) - 1);
      expect(accrued, id).toBeLessThanOrEqual(Math.ceil(rate * (t1b - t0)) + 1);
    }
    expect(after.items.reduce((sum, i) => sum + micros(i.amount), 0)).toBe(micros(after.total));
  });
});
