import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { hasCondition, reconciledMore, until, useOperatorEnvironment } from "./support.ts";

// Issue "Never wedge": a stop never hangs on a slow service. Past the grace period, the hosting
// call in flight is abandoned and the operator calls the service no more.

/** How each create call the operator made ended (an HTTP status, or a client code such as timeout). */
async function createsEndedBy(registry: Registry): Promise<string[]> {
  const metric = await registry.getSingleMetric("berth_hosting_requests_total")?.get();
  return (metric?.values ?? [])
    .filter((v) => v.labels.operation === "createApp" && v.value > 0)
    .map((v) => String(v.labels.code));
}

describe("stopping with a hosting call in flight", () => {
  const env = useOperatorEnvironment();

  it("abandons a create the service is slow to answer once the grace period is over", async () => {
    const account = await env.setUp();
    const registry = new Registry();
    const operator = await env.startOperator({ registry }, "10m", { shutdownGrace: "1s" });
    await env.create("projects", "p", {});
    await env.waitFor("projects", "p", hasCondition("Ready"));
    env.sim.injectFault({ operation: "createApp", latencyMs: 60_000, times: 1 });
    await env.create("apps", "slow", { projectRef: { name: "p" }, image: "nginx:1.27" });
    // The fault is used up once the create reached the service, which now holds it for a minute.
    await until(() => env.sim.faults().length === 0, "the create in flight");
    const started = Date.now();
    await operator.stop();
    // It waited out the grace period, then stopped while the service still held the create: the
    // call ended by the abort, not by its own timeout (30 s) nor by an answer (60 s).
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(env.requests("createApp")).toEqual([]);
    expect(await createsEndedBy(registry)).toEqual(["aborted"]);
    const callsAtStop = env.requests().length;
    // A witness: an operator on another key of the same user, started after the stop, reconciles
    // the App after an edit; a stopped operator still at work would have called with its key by then.
    const rotated = env.sim.addKey({ userId: account.userId });
    await env.putSecret("berth-credentials", { apiKey: rotated.token, baseUrl: env.baseUrl });
    const witness = new Registry();
    await env.startOperator({ registry: witness });
    await env.patch("apps", "slow", { metadata: { labels: { touched: "after-stop" } } });
    await until(() => env.sim.requests().some((r) => r.keyId === rotated.id), "the witness's first call");
    await reconciledMore(witness, "app", 0, 2);
    expect(env.requests().length).toBe(callsAtStop);
  });
});
