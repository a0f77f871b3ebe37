import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { berthObjects, withCondition } from "../support/berth-objects.ts";
import { kubeConfig } from "../support/kube.ts";
import { reconciles, until, useOperatorEnvironment } from "./support.ts";

// Issue "Never wedge": after a restart or failover, settled Projects, Grids and ServerOrders are not
// all re-read at once at user priority; their first reads are spread over the drift interval.

const order = {
  csp: "native",
  region: "eu-central",
  zone: "eu-central-1a",
  instanceType: "native.small",
  count: 1,
  approved: true,
  maxHourlyCost: "0.10",
};

describe("restart without a burst", () => {
  const env = useOperatorEnvironment();
  const objects = berthObjects(kubeConfig(), () => env.namespace);

  it("a restarted operator reads none of its settled Projects, Grids and ServerOrders at once", async () => {
    await env.setUp();
    const first = await env.startOperator({}, "10m");
    for (let i = 0; i < 4; i++) {
      await objects.create("projects", `p${i}`, {});
      await objects.create("grids", `g${i}`, {});
    }
    await objects.create("serverorders", "batch", order);
    for (let i = 0; i < 4; i++) {
      await objects.waitFor("projects", `p${i}`, withCondition("Ready"));
      await objects.waitFor("grids", `g${i}`, withCondition("Ready"));
    }
    await objects.waitFor("serverorders", "batch", withCondition("Ready"), 30_000);
    await first.stop();
    const reads = () =>
      env.requests("getProject").length + env.requests("getGrid").length + env.requests("getOrder").length;
    const before = reads();
    const registry = new Registry();
    await env.startOperator({ registry }, "10m");
    // The restarted operator has reconciled each of the nine once (a burst would read them there).
    const all = { project: 4, grid: 4, serverorder: 1 };
    for (const [controller, count] of Object.entries(all)) {
      await until(async () => (await reconciles(registry, controller)) >= count, `${controller} reconciled`);
    }
    // Spread over 10 minutes, nine first reads almost surely all fall after those reconciles.
    expect(reads() - before).toBeLessThanOrEqual(1);
    for (let i = 0; i < 4; i++) await objects.waitFor("projects", `p${i}`, withCondition("Ready"));
    await objects.waitFor("serverorders", "batch", withCondition("Ready"));
  });
});
