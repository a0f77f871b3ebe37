import { type ChildProcess, spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { berthObjects, pending, withCondition } from "../support/berth-objects.ts";
import { kubeConfig, kubeconfigPath } from "../support/kube.ts";
import { serviceHttp } from "../support/service-http.ts";
import { until, useOperatorEnvironment } from "./support.ts";

/** `berth operator` as its own process, watching one namespace. */
function operatorProcess(namespace: string): ChildProcess {
  const args = ["src/main.ts", "operator", "--kubeconfig", kubeconfigPath(), "--namespace", namespace];
  return spawn(
    process.execPath,
    [...args, "--metrics-addr", "", "--health-addr", "", "--log-level", "warn"],
    {
      stdio: ["ignore", "ignore", "inherit"],
    },
  );
}

async function stop(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill(signal);
  await exited;
}

describe("operator killed while the real order call is in flight", () => {
  const env = useOperatorEnvironment();
  const objects = berthObjects(kubeConfig(), () => env.namespace);

  it("ends with exactly one order at the service after a restart", async () => {
    const account = await env.setUp();
    const service = serviceHttp(env.baseUrl, account.token);
    const spec = {
      csp: "native",
      region: "eu-central",
      zone: "eu-central-1a",
      instanceType: "native.small",
      count: 1,
    };
    const placed = () => env.requests("provisionServers").filter((r) => r.status === 202 && !r.replayed);
    const first = operatorProcess(env.namespace);
    try {
      await objects.create("serverorders", "batch", spec);
      await objects.waitFor(
        "serverorders",
        "batch",
        withCondition("Ordered", "False", "AwaitingApproval"),
        30_000,
      );
      // The service holds the real order (after the fresh estimate) for 3 s, in progress under its key, then acts.
      const held = env.sim.injectFault({ operation: "provisionServers", latencyMs: 3000, skip: 1, times: 1 });
      await objects.patch("serverorders", "batch", { spec: { approved: true, maxHourlyCost: "1" } });
      // Status records the order's intent before the call is sent; the kill waits for the call itself.
      await objects.waitFor("serverorders", "batch", (o) => pending(o, "orderServers") !== undefined);
      await until(() => env.faultSpent(held), "the order held at the service");
      await stop(first, "SIGKILL");
      expect(env.sim.spentFaults()).toEqual([expect.objectContaining({ id: held, hits: 1 })]);
    } finally {
      await stop(first, "SIGKILL");
    }
    expect((await objects.get("serverorders", "batch"))?.status?.orderId).toBeUndefined();
    // The service places the order with nobody left to hear the answer.
    await until(() => placed().length === 1, "the held order placed");

    const second = operatorProcess(env.namespace);
    try {
      const ready = await objects.waitFor("serverorders", "batch", withCondition("Ready"), 40_000);
      const orders = await service.items<{ id: string }>("/servers/orders");
      expect(orders.map((o) => o.id)).toEqual([ready?.status?.orderId]);
      expect(placed()).toHaveLength(1);
      expect(ready?.status?.servers).toHaveLength(1);
    } finally {
      await stop(second, "SIGTERM");
    }
  });
});

describe("operator killed while the growth order call is in flight", () => {
  const env = useOperatorEnvironment();
  const objects = berthObjects(kubeConfig(), () => env.namespace);

  it("grows by the difference exactly once after a restart", async () => {
    const account = await env.setUp();
    const service = serviceHttp(env.baseUrl, account.token);
    const spec = {
      csp: "native",
      region: "eu-central",
      zone: "eu-central-1a",
      instanceType: "native.small",
      count: 1,
      approved: true,
      maxHourlyCost: "1",
    };
    const placed = () => env.requests("provisionServers").filter((r) => r.status === 202 && !r.replayed);
    const first = operatorProcess(env.namespace);
    try {
      await objects.create("serverorders", "batch", spec);
      await objects.waitFor("serverorders", "batch", withCondition("Ready"), 40_000);
      // The growth order (after its dry run) is held for 3 s under its key, then acts.
      const held = env.sim.injectFault({ operation: "provisionServers", latencyMs: 3000, skip: 1, times: 1 });
      await objects.patch("serverorders", "batch", { spec: { count: 3 } });
      await objects.waitFor("serverorders", "batch", (o) => pending(o, "growServers") !== undefined);
      await until(() => env.faultSpent(held), "the growth order held at the service");
      await stop(first, "SIGKILL");
      expect(env.sim.spentFaults()).toEqual([expect.objectContaining({ id: held, hits: 1 })]);
    } finally {
      await stop(first, "SIGKILL");
    }
    const killed = await objects.get("serverorders", "batch");
    expect(JSON.parse(pending(killed, "growServers")?.input ?? "{}")).toMatchObject({
      request: { count: 2 },
      step: { target: 3 },
    });
    expect(killed?.status?.growthOrders).toBeUndefined();
    await until(() => placed().length === 2, "the held growth order placed");

    const second = operatorProcess(env.namespace);
    try {
      const ready = await objects.waitFor(
        "serverorders",
        "batch",
        (o) => withCondition("Ready")(o) && ((o?.status?.servers ?? []) as unknown[]).length === 3,
        40_000,
      );
      const orders = await service.items<{ id: string; count: number }>("/servers/orders");
      expect(orders.map((o) => o.count).sort()).toEqual([1, 2]);
      expect(placed()).toHaveLength(2);
      expect(ready?.status?.intents ?? []).toEqual([]);
      expect(ready?.status?.growthOrders).toEqual([expect.objectContaining({ count: 2 })]);
    } finally {
      await stop(second, "SIGTERM");
    }
  });
});
