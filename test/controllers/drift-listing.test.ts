import { describe, expect, it } from "vitest";
import { hasCondition, until, useOperatorEnvironment } from "./support.ts";

// Drift checks of a project's settled Apps share one listing of the project instead of reading
// each app: the key's budget then carries about twice as many Apps at a given drift interval.
describe("App drift by listing", () => {
  // Whole pages, so a listing is one call and the count below is of listings.
  const env = useOperatorEnvironment({ profile: { base: "harsh", sampleValues: true, fullPages: true } });

  it("checks four Apps of one project with shared listings, and still reverts a change made outside berth", async () => {
    const account = await env.setUp();
    await env.startOperator({}, "1s");
    await env.create("projects", "demo", {});
    const names = ["a", "b", "c", "d"];
    for (const name of names) {
      await env.create("apps", name, {
        projectRef: { name: "demo" },
        image: "nginx:1.27",
        ports: [{ port: 80, protocol: "http80_load_balancer" }],
      });
    }
    for (const name of names) await env.waitFor("apps", name, hasCondition("Ready"));
    const count = () => ({
      get: env.requests("getApp").length,
      list: env.requests("listApps").length,
      status: env.requests("getAppStatus").length,
    });
    // Settled: a round of drift checks after Ready, then twelve more checks counted.
    const ready = count();
    await until(() => count().status >= ready.status + names.length, "a round of drift checks", 30_000);
    const before = count();
    await until(() => count().status >= before.status + 12, "twelve drift checks", 60_000);
    const after = count();
    const [gets, lists, checks] = [
      after.get - before.get,
      after.list - before.list,
      after.status - before.status,
    ];
    // Four Apps checked about once a second: each check reads the app's status, and its config
    // comes from a listing of the project shared by the checks of about a second.
    expect(gets).toBeLessThanOrEqual(2);
    expect(lists).toBeLessThanOrEqual(checks / 2);

    const app = await env.get("apps", "c");
    const url = `${env.baseUrl}/projects/${app?.status?.projectId}/apps/${app?.status?.appId}`;
    const headers = { authorization: `Bearer ${account.token}`, "content-type": "application/json" };
    const updates = env.requests("updateApp").length;
    const changed = await fetch(url, {
      method: "PATCH",
      headers,
      body: JSON.stringify({ config: { ports: [{ port: 9090, protocol: "tcp" }] } }),
    });
    expect(changed.status).toBe(200);
    await until(() => env.requests("updateApp").length === updates + 2);
    const config = (await (await fetch(url, { headers })).json()) as { config: { ports: unknown[] } };
    expect(config.config.ports).toEqual([{ port: 80, protocol: "http80_load_balancer" }]);
    await env.waitForEvent("c", "DriftReverted");
  });
});
