import { describe, expect, it } from "vitest";
import { hasCondition, until, useOperatorEnvironment } from "./support.ts";

// Issue "Never wedge": a throttled key never holds a worker. With one worker, an App whose key the
// service told to wait (Retry-After 30 s) must not hold up another tenant's App.

describe("throttling never occupies a worker", () => {
  const env = useOperatorEnvironment();

  it("another tenant's App is Ready while the first waits out its Retry-After, which is honoured", async () => {
    const account = await env.setUp();
    const other = env.sim.addUser({ email: `other-${env.namespace}@example.test`, balance: 1000 });
    await env.putSecret("other-key", {
      apiKey: env.sim.addKey({ userId: other.id }).token,
      baseUrl: env.baseUrl,
    });
    env.sim.injectFault({ operation: "createApp", status: 429, retryAfterSec: 30, times: 1 });
    await env.startOperator({}, "10m", { concurrency: 1 });
    await env.create("projects", "a", {});
    await env.create("projects", "b", { credentialsRef: { name: "other-key" } });
    await env.waitFor("projects", "b", hasCondition("Ready"));
    await env.create("apps", "throttled", { projectRef: { name: "a" }, image: "nginx:1.27" });
    await until(() => env.sim.requests({ operation: "createApp" }).some((r) => r.status === 429));
    await env.create("apps", "other", {
      projectRef: { name: "b" },
      image: "nginx:1.27",
      credentialsRef: { name: "other-key" },
    });
    await env.waitFor("apps", "other", hasCondition("Ready"), 20_000);
    // The throttled App is not retried before its 30 s are up, so the other key's App was Ready
    // before the throttled one's first retry: it did not wait behind it.
    const creates = env.sim.requests({ operation: "createApp" }).filter((r) => r.keyId === account.keyId);
    expect(creates.map((r) => r.status)).toEqual([429]);
  });
});
