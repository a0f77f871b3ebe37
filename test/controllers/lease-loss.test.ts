import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { leaseName } from "../../src/operator/permissions.ts";
import { KubeClient, microTime } from "../../src/runtime/index.ts";
import { kubeConfig } from "../support/kube.ts";
import { hasCondition, until, useOperatorEnvironment } from "./support.ts";

/** Apps the operator's informer holds (berth_resources, summed over conditions). */
async function appsKnown(registry: Registry): Promise<number> {
  const metric = await registry.getSingleMetric("berth_resources")?.get();
  return (metric?.values ?? []).filter((v) => v.labels.kind === "App").reduce((sum, v) => sum + v.value, 0);
}

// Issue "Never wedge": once another replica holds the lease, the old leader abandons the hosting
// call in flight, calls the service no more and writes no status: two leaders never act at once.

describe("losing the lease with a hosting call in flight", () => {
  const env = useOperatorEnvironment();

  it("abandons the call, stops calling the service and writes nothing more", async () => {
    await env.setUp();
    let lost = false;
    const registry = new Registry();
    await env.startOperator({ registry, onLeadershipLost: () => (lost = true) }, "10m", {
      leaderElect: true,
      leaderElectionNamespace: env.namespace,
    });
    await env.create("projects", "p", {});
    await env.waitFor("projects", "p", hasCondition("Ready"), 30_000);
    env.sim.injectFault({ operation: "createApp", latencyMs: 60_000, times: 1 });
    await env.create("apps", "slow", { projectRef: { name: "p" }, image: "nginx:1.27" });
    await until(() => env.sim.faults().length === 0, "the create in flight");
    const before = await env.get("apps", "slow");

    await stealLease(env.namespace);
    // The leader notices at its renew deadline (10 s); the wait allows a loaded machine more.
    await until(() => lost, "leadership lost", 40_000);

    // An App created after the loss reaches the old leader's informer (it counts it): a leader
    // would now create it at the service. This one calls nothing and writes nothing.
    const callsAtLoss = env.requests().length;
    const known = await appsKnown(registry);
    const created = (await env.create("apps", "after", {
      projectRef: { name: "p" },
      image: "nginx:1.27",
    })) as {
      metadata: { resourceVersion: string };
    };
    await until(async () => (await appsKnown(registry)) === known + 1, "the new App seen by the old leader");
    expect(env.requests().length).toBe(callsAtLoss);
    expect((await env.get("apps", "after"))?.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
    const after = await env.get("apps", "slow");
    expect(after?.metadata.resourceVersion).toBe(before?.metadata.resourceVersion);
  }, 90_000);
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
