import { describe, expect, it } from "vitest";
import { leaseName } from "../../src/operator/permissions.ts";
import { KubeClient, microTime } from "../../src/runtime/index.ts";
import { kubeConfig } from "../support/kube.ts";
import { hasCondition, sleep, until, useOperatorEnvironment } from "./support.ts";

// Issue "Never wedge": once another replica holds the lease, the old leader abandons the hosting
// call in flight, calls the service no more and writes no status: two leaders never act at once.

describe("losing the lease with a hosting call in flight", () => {
  const env = useOperatorEnvironment();

  it("abandons the call, stops calling the service and writes nothing more", async () => {
    await env.setUp();
    let lostAt: number | undefined;
    await env.startOperator({ onLeadershipLost: () => (lostAt ??= Date.now()) }, "10m", {
      leaderElect: true,
      leaderElectionNamespace: env.namespace,
    });
    await env.create("projects", "p", {});
    await env.waitFor("projects", "p", hasCondition("Ready"), 30_000);
    env.sim.injectFault({ operation: "createApp", latencyMs: 60_000, times: 1 });
    await env.create("apps", "slow", { projectRef: { name: "p" }, image: "nginx:1.27" });
    await until(() => env.sim.faults().length === 0, "the create in flight");
    const before = await env.get("apps", "slow");

    const stolenAt = Date.now();
    await stealLease(env.namespace);
    // The leader notices at its renew deadline (10 s) at the latest.
    await until(() => lostAt !== undefined, "leadership lost", 20_000);
    expect((lostAt ?? 0) - stolenAt).toBeLessThan(15_000);

    const callsAtLoss = env.requests().length;
    await sleep(1_500);
    expect(env.requests().length).toBe(callsAtLoss);
    const after = await env.get("apps", "slow");
    expect(after?.metadata.resourceVersion).toBe(before?.metadata.resourceVersion);
  }, 60_000);
});

/** Another replica takes the lease: holder and renewal replaced, as after a network partition. */
async function stealLease(namespace: string): Promise<void> {
  const kube = new KubeClient(kubeConfig());
  const path = `/apis/coordination.k8s.io/v1/namespaces/${namespace}/leases/${leaseName}`;
  try {
    const lease = (await kube.call("GET", path)) as { metadata: { resourceVersion: string }; spec: object };
    const now = microTime(Date.now());
    await kube.call("PUT", path, {
      body: {
        ...lease,
        spec: {
          ...lease.spec,
          holderIdentity: "another-replica",
          leaseDurationSeconds: 60,
          acquireTime: now,
          renewTime: now,
        },
      },
    });
  } finally {
    await kube.close();
  }
}
