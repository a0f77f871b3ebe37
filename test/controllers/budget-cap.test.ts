import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import type { App } from "../../src/api/app.ts";
import { condition, hasCondition, until, useOperatorEnvironment } from "./support.ts";

// Issue "Never wedge": no resource spends more than its share of a key's budget (20 % per minute)
// without progress. An App whose create always fails loops on its key; past its share it waits,
// and a Project on the same key still gets Ready.

/** Reconciles the budget kept from calling (berth_resource_budget_capped_total) for `kind`. */
async function cappedReconciles(registry: Registry, kind: string): Promise<number> {
  const metric = await registry.getSingleMetric("berth_resource_budget_capped_total")?.get();
  return (metric?.values ?? []).filter((v) => v.labels.kind === kind).reduce((sum, v) => sum + v.value, 0);
}

/** When the capped resource said it calls again (its Reconciling message), in ms since the epoch. */
function cappedUntil(app: App | undefined): number {
  const until = /\(until (\S+)\)/.exec(condition(app, "Reconciling")?.message ?? "")?.[1];
  expect(until).toBeDefined();
  return Date.parse(until ?? "");
}

describe("per-resource budget cap", () => {
  const env = useOperatorEnvironment();

  it("caps a resource looping on a failing call while another resource on the key gets Ready", async () => {
    await env.setUp();
    const registry = new Registry();
    // A key allowed 20 calls a minute: one resource's 20 % share is 4 calls.
    await env.startOperator({ registry, hosting: { limits: { perCredential: 20 } } }, "10m", {
      resourceBudgetShare: "20%",
    });
    await env.create("projects", "a", {});
    await env.waitFor("projects", "a", hasCondition("Ready"));
    env.sim.injectFault({ operation: "createApp", status: 503 });
    await env.create("apps", "looping", { projectRef: { name: "a" }, image: "nginx:1.27" });
    await env.waitForEvent("looping", "BudgetCapped");
    const loopCalls = () => env.requests("createApp").length + env.requests("listApps").length;
    const atCap = loopCalls();
    expect(atCap).toBeGreaterThanOrEqual(4);
    expect(atCap).toBeLessThanOrEqual(8);

    await env.create("projects", "b", {});
    await env.waitFor("projects", "b", hasCondition("Ready"), 15_000);
    // Capped until the oldest of its calls leaves the minute: a reconcile meanwhile (woken by a
    // label, no progress) is kept from calling.
    const capped = await cappedReconciles(registry, "App");
    await env.patch("apps", "looping", { metadata: { labels: { touched: "yes" } } });
    await until(async () => (await cappedReconciles(registry, "App")) > capped, "a capped reconcile");
    expect(loopCalls()).toBe(atCap);
    expect((await env.eventReasons("looping")).filter((r) => r === "BudgetCapped")).toHaveLength(1);
    // Its conditions say it waits for budget, and until when.
    const waiting = await env.get("apps", "looping");
    expect(condition(waiting, "Reconciling")).toMatchObject({ status: "True", reason: "BudgetCapped" });
    expect(condition(waiting, "Reconciling")?.message).toMatch(/berth waits \d+ s \(until \d{4}-\d\d-\d\dT/);
  });

  it("acts at once on a fix of the credentials Secret the capped resource uses", async () => {
    const account = await env.setUp();
    await env.startOperator({ hosting: { limits: { perCredential: 20 } } }, "10m", {
      resourceBudgetShare: "20%",
    });
    await env.create("projects", "a", {});
    await env.waitFor("projects", "a", hasCondition("Ready"));
    env.sim.injectFault({ operation: "createApp", status: 503 });
    await env.create("apps", "looping", { projectRef: { name: "a" }, image: "nginx:1.27" });
    const capped = await env.waitFor("apps", "looping", hasCondition("Reconciling", "True", "BudgetCapped"));

    // The person fixes what was wrong and touches the Secret: no need to wait out the minute.
    env.sim.clearFaults();
    await env.putSecret("berth-credentials", { apiKey: account.token, baseUrl: env.baseUrl, fixed: "yes" });
    await env.waitFor("apps", "looping", (app) => condition(app, "Reconciling")?.reason !== "BudgetCapped");
    // Acted on before the time the cap named: it did not wait the cap out.
    expect(Date.now()).toBeLessThan(cappedUntil(capped));
    expect(env.requests("createApp").length).toBeGreaterThan(0);
  });

  it("echoes a reconcile-requested-at annotation on a capped resource at once", async () => {
    await env.setUp();
    await env.startOperator({ hosting: { limits: { perCredential: 20 } } }, "10m", {
      resourceBudgetShare: "20%",
    });
    await env.create("projects", "a", {});
    await env.waitFor("projects", "a", hasCondition("Ready"));
    env.sim.injectFault({ operation: "createApp", status: 503 });
    await env.create("apps", "looping", { projectRef: { name: "a" }, image: "nginx:1.27" });
    const capped = await env.waitFor("apps", "looping", hasCondition("Reconciling", "True", "BudgetCapped"));

    env.sim.clearFaults();
    const requestedAt = new Date().toISOString();
    await env.patch("apps", "looping", {
      metadata: { annotations: { "berth.dev/reconcile-requested-at": requestedAt } },
    });
    await env.waitFor("apps", "looping", (app) => app?.status?.lastHandledReconcileAt === requestedAt);
    // Echoed before the time the cap named: it did not wait the cap out.
    expect(Date.now()).toBeLessThan(cappedUntil(capped));
    await env.waitFor("apps", "looping", hasCondition("Ready"), 20_000);
  });
});
