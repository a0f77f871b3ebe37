import { describe, expect, it } from "vitest";
import { type BerthObject, berthObjects, conditionOf, withCondition } from "../support/berth-objects.ts";
import { kubeConfig } from "../support/kube.ts";
import { serviceHttp } from "../support/service-http.ts";
import { useOperatorEnvironment } from "./support.ts";

interface ServiceServer {
  address: string;
  orderId: string;
  state: string;
  createdAt: string;
}

interface StatusServer {
  address: string;
  state?: string;
  power?: string;
}

const zone = "eu-central-1a";
const order = { csp: "native", region: "eu-central", zone, instanceType: "native.small" };
/** native.small is 0.0520 USD per hour at the simulator: four cost 0.2080. */
const approved = { approved: true, maxHourlyCost: "0.25" };

describe("ServerOrder power and count", () => {
  const env = useOperatorEnvironment();
  const objects = berthObjects(kubeConfig(), () => env.namespace);

  /** An approved order of `count` servers, Ready. */
  async function ordered(count: number) {
    const account = await env.setUp();
    await env.startOperator();
    const service = serviceHttp(env.baseUrl, account.token);
    await objects.create("serverorders", "batch", { ...order, ...approved, count });
    const ready = await objects.waitFor("serverorders", "batch", withCondition("Ready"), 30_000);
    return { service, orderId: ready?.status?.orderId as string };
  }

  const serversOf = (o: BerthObject | undefined) => (o?.status?.servers ?? []) as StatusServer[];
  const placedOrders = () => env.requests("provisionServers").filter((r) => r.status === 202 && !r.replayed);
  const everyServer = (power: string) => (o: BerthObject | undefined) => {
    const servers = serversOf(o);
    return servers.length > 0 && servers.every((s) => s.power === power);
  };

  it("hibernates the servers with one call, shows them hibernated, and is Ready (disks kept)", async () => {
    const { service, orderId } = await ordered(2);
    await objects.patch("serverorders", "batch", { spec: { power: "Hibernated" } });
    const hibernated = await objects.waitFor(
      "serverorders",
      "batch",
      (o) => conditionOf(o, "Ready")?.status === "True" && everyServer("Hibernated")(o),
      20_000,
    );
    expect(conditionOf(hibernated, "Ready")?.message).toMatch(/hibernated.*disk/);
    const atService = await service.items<ServiceServer>(`/servers?orderId=${orderId}`);
    expect(atService.map((s) => s.state)).toEqual(["hibernated", "hibernated"]);
    expect(env.requests("powerServers").map((r) => r.status)).toEqual([202]);
  });

  it("a wake without capacity is Reconciling WakeBlocked, retried with backoff, and On once capacity returns", async () => {
    const { service, orderId } = await ordered(1);
    await objects.patch("serverorders", "batch", { spec: { power: "Hibernated" } });
    await objects.waitFor("serverorders", "batch", everyServer("Hibernated"), 20_000);

    env.sim.setCapacity(zone, false);
    try {
      await objects.patch("serverorders", "batch", { spec: { power: "On" } });
      const blocked = await objects.waitFor(
        "serverorders",
        "batch",
        withCondition("Reconciling", "True", "WakeBlocked"),
        20_000,
      );
      expect(conditionOf(blocked, "Reconciling")?.message).toMatch(/no capacity in zone eu-central-1a/);
      expect(conditionOf(blocked, "Stalled")?.status ?? "False").toBe("False");
      // Retried, but with backoff: a few calls, not a loop.
      await objects.waitFor("serverorders", "batch", () => env.requests("powerServers").length >= 3, 20_000);
      expect(env.requests("powerServers").length).toBeLessThan(8);
    } finally {
      env.sim.setCapacity(zone, true);
    }
    const woken = await objects.waitFor(
      "serverorders",
      "batch",
      (o) => conditionOf(o, "Ready")?.status === "True" && conditionOf(o, "Reconciling")?.status !== "True",
      30_000,
    );
    expect(woken?.status?.servers).toEqual([expect.objectContaining({ state: "running", power: "On" })]);
    const atService = await service.items<ServiceServer>(`/servers?orderId=${orderId}`);
    expect(atService.map((s) => s.state)).toEqual(["running"]);
  });

  it("growing by N orders N once, after a dry run of N; shrinking deprovisions the newest", async () => {
    const { service, orderId } = await ordered(1);
    const before = env.requests("provisionServers").length;
    await objects.patch("serverorders", "batch", { spec: { count: 3 } });
    const grown = await objects.waitFor(
      "serverorders",
      "batch",
      (o) => conditionOf(o, "Ready")?.status === "True" && serversOf(o).length === 3,
      30_000,
    );
    const growth = grown?.status?.growthOrders as { id: string; count: number }[];
    expect(growth).toEqual([expect.objectContaining({ count: 2 })]);
    expect(placedOrders()).toHaveLength(2);
    // One dry run and one order for the growth.
    expect(
      env
        .requests("provisionServers")
        .slice(before)
        .map((r) => r.status),
    ).toEqual([200, 202]);
    expect(grown?.status?.estimate).toEqual({ hourlyCost: "0.1560", currency: "USD" });
    const growthServers = await service.items<ServiceServer>(`/servers?orderId=${growth[0]?.id}`);
    expect(growthServers).toHaveLength(2);

    await objects.patch("serverorders", "batch", { spec: { count: 1 } });
    const shrunk = await objects.waitFor(
      "serverorders",
      "batch",
      (o) =>
        conditionOf(o, "Ready")?.status === "True" &&
        serversOf(o).length === 1 &&
        o?.status?.removing === undefined,
      30_000,
    );
    const firstServers = await service.items<ServiceServer>(`/servers?orderId=${orderId}`);
    expect(shrunk?.status?.servers).toEqual([expect.objectContaining({ address: firstServers[0]?.address })]);
    expect(await service.items<ServiceServer>(`/servers?orderId=${growth[0]?.id}`)).toEqual([]);
    expect(env.requests("deprovisionServers").map((r) => r.status)).toEqual([202]);
    expect(placedOrders()).toHaveLength(2);
  });

  it("growth over maxHourlyCost orders nothing and says so", async () => {
    await ordered(1);
    await objects.patch("serverorders", "batch", { spec: { count: 5 } });
    const stalled = await objects.waitFor(
      "serverorders",
      "batch",
      withCondition("Stalled", "True", "OverBudget"),
      20_000,
    );
    expect(conditionOf(stalled, "Stalled")?.message).toMatch(
      /0\.2600 USD for all 5.*above spec\.maxHourlyCost 0\.25/,
    );
    expect(placedOrders()).toHaveLength(1);
  });
});
