import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { clockSpeed, hasCondition, sleep, until, useOperatorEnvironment } from "./support.ts";

// Issue 26: when drift asks for more reads than the key's budget, a change still goes first. Four
// workers, a key allowed 40 calls per (sped-up) minute and Apps checked for drift every second:
// drift asks for several times its share, so without priorities the new App would queue behind
// every drift check, each holding a worker inside the limiter.

const apps = 16;
const windowMs = 60_000 / clockSpeed;

async function metric(registry: Registry, name: string): Promise<number> {
  const values = (await registry.getSingleMetric(name)?.get())?.values ?? [];
  return values.reduce((sum, v) => sum + v.value, 0);
}

/** A read of one App (its path names the App's id), as drift makes. */
function isAppRead(path: string): boolean {
  return /\/apps\/[^/]+/.test(path);
}

describe("changes first under a saturated budget", () => {
  // The service's own budget: the client follows its X-RateLimit headers.
  const env = useOperatorEnvironment({ rateLimits: { perCredential: 40, perUser: 80 } });

  it("a new App is Ready at once while drift is stretched and no worker waits for the budget", async () => {
    await env.setUp();
    const registry = new Registry();
    await env.startOperator({ registry, hosting: { limits: { perCredential: 40, windowMs } } }, "1s", {
      concurrency: 4,
    });
    await env.create("projects", "p", {});
    await env.waitFor("projects", "p", hasCondition("Ready"));
    for (let i = 0; i < apps; i++)
      await env.create("apps", `a${i}`, { projectRef: { name: "p" }, image: "nginx:1.27" });
    await until(
      async () =>
        (await Promise.all(Array.from({ length: apps }, (_, i) => env.get("apps", `a${i}`)))).every(
          hasCondition("Ready"),
        ),
      "all Apps Ready",
      60_000,
    );
    // Drift now asks for ~32 reads a second (16 Apps, two reads a check) against a background share of 12.
    let lag = 0;
    for (let waited = 0; waited < 2 * windowMs; waited += 200) {
      await sleep(200);
      lag = Math.max(lag, await metric(registry, "berth_drift_lag_seconds"));
    }
    expect(lag).toBeGreaterThan(0);

    const earlier = new Set(env.requests().map((r) => r.requestId));
    await env.create("apps", "urgent", { projectRef: { name: "p" }, image: "nginx:1.27" });
    await env.waitFor("apps", "urgent", hasCondition("Ready"), 30_000);

    // Counted in the request log, not in seconds: behind the drift checks in arrival order the
    // create would wait for about a round of them (two reads for each of 16 Apps); going first,
    // only reads already under way answer before it.
    const since = env.requests().filter((r) => !earlier.has(r.requestId));
    const created = since.findIndex((r) => r.operation === "createApp");
    expect(created).toBeGreaterThanOrEqual(0);
    expect(since.slice(0, created).filter((r) => isAppRead(r.path)).length).toBeLessThan(apps);
    expect(await metric(registry, "berth_reconcile_deferred_total")).toBeGreaterThan(0);
    expect(env.requests().filter((r) => r.status === 429)).toHaveLength(0);
  }, 120_000);
});
