import { describe, expect, it } from "vitest";
import { hasCondition, sleep, until, useOperatorEnvironment } from "./support.ts";

// Issue "Never wedge": a stop never hangs on a slow service. Past the grace period, the hosting
// call in flight is abandoned and the operator calls the service no more.

describe("stopping with a hosting call in flight", () => {
  const env = useOperatorEnvironment();

  it("abandons a create the service is slow to answer once the grace period is over", async () => {
    await env.setUp();
    const operator = await env.startOperator({}, "10m", { shutdownGrace: "1s" });
    await env.create("projects", "p", {});
    await env.waitFor("projects", "p", hasCondition("Ready"));
    env.sim.injectFault({ operation: "createApp", latencyMs: 60_000, times: 1 });
    await env.create("apps", "slow", { projectRef: { name: "p" }, image: "nginx:1.27" });
    // The fault is used up once the create reached the service, which now holds it for a minute.
    await until(() => env.sim.faults().length === 0, "the create in flight");
    const started = Date.now();
    await operator.stop();
    const stoppedInMs = Date.now() - started;
    expect(stoppedInMs).toBeGreaterThanOrEqual(900);
    expect(stoppedInMs).toBeLessThan(4_000);
    const callsAtStop = env.requests().length;
    await sleep(1_000);
    expect(env.requests().length).toBe(callsAtStop);
  });
});
