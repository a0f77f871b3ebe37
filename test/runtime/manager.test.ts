import { beforeAll, describe, expect, it } from "vitest";
import { Controller } from "../../src/runtime/controller.ts";
import { Informer } from "../../src/runtime/informer.ts";
import { Manager } from "../../src/runtime/manager.ts";
import { microTime } from "../../src/runtime/micro-time.ts";
import { Outcome } from "../../src/runtime/outcome.ts";
import { kubeConfig, useNamespace } from "../support/kube.ts";
import {
  counterValue,
  installWidgetCrd,
  type RuntimeKit,
  runtimeKit,
  until,
  widgets,
  widgetType,
} from "./helpers.ts";

const config = kubeConfig();
const server = widgets(config);

beforeAll(() => installWidgetCrd(config));

interface Replica {
  identity: string;
  manager: Manager;
  kit: RuntimeKit;
  informer: Informer;
  reconciled: string[];
}

interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
}

/** The Lease as the apiserver holds it: its times are the replicas' own records. */
async function leaseSpec(namespace: string, name: string): Promise<LeaseSpec> {
  const kit = runtimeKit(config);
  try {
    const path = `/apis/coordination.k8s.io/v1/namespaces/${namespace}/leases/${name}`;
    return ((await kit.client.call("GET", path)) as { spec: LeaseSpec }).spec;
  } finally {
    await kit.client.close();
  }
}

interface Timings {
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
}

function replica(
  identity: string,
  namespace: string,
  lease: string,
  onLost = () => {},
  timings: Timings = {},
): Replica {
  const kit = runtimeKit(config);
  const reconciled: string[] = [];
  const informer = new Informer({
    client: kit.client,
    type: widgetType,
    logger: kit.logger,
    metrics: kit.metrics.watch,
    namespaces: [namespace],
  });
  const controller = new Controller({
    name: "widgets",
    informer,
    logger: kit.logger,
    metrics: kit.metrics,
    concurrency: 2,
    reconcile: async ({ key }) => {
      reconciled.push(key);
      return Outcome.done();
    },
  });
  const manager = new Manager({
    logger: kit.logger,
    metrics: kit.metrics,
    healthAddr: "127.0.0.1:0",
    metricsAddr: "127.0.0.1:0",
    leaderElection: { client: kit.client, namespace, name: lease, identity, ...timings },
    onLeadershipLost: onLost,
  });
  manager.addInformer(informer).addController(controller);
  return { identity, manager, kit, informer, reconciled };
}

async function stopAll(...replicas: Replica[]): Promise<void> {
  for (const r of replicas) {
    await r.manager.stop();
    await r.kit.client.close();
  }
}

async function get(address: string | undefined, path: string): Promise<{ status: number; body: string }> {
  const response = await fetch(`http://${address}${path}`);
  return { status: response.status, body: await response.text() };
}

describe("manager with leader election", () => {
  const namespace = useNamespace("leader");

  it("runs controllers on one replica only, and the other takes over once a graceful stop releases the lease", async () => {
    await server.create(namespace.name, "w1");
    const a = replica("replica-a", namespace.name, "berth-test");
    const b = replica("replica-b", namespace.name, "berth-test");
    try {
      await a.manager.start();
      await until(() => a.manager.isLeader(), 10_000, "a leads");
      await b.manager.start();
      await until(() => a.reconciled.includes(`${namespace.name}/w1`), 10_000, "a reconciles");

      // Both ready (warm caches on the standby too); only the leader reconciles.
      for (let i = 0; i < 30; i++) {
        expect(a.manager.isLeader() && b.manager.isLeader()).toBe(false);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      await server.create(namespace.name, "w2");
      await until(() => a.reconciled.includes(`${namespace.name}/w2`), 10_000, "a reconciles w2");
      expect(b.reconciled).toEqual([]);
      expect((await get(b.manager.addresses.health, "/readyz")).status).toBe(200);
      expect(await counterValue(a.kit.metrics, "leader_election_master_status")).toBe(1);
      expect(await counterValue(b.kit.metrics, "leader_election_master_status")).toBe(0);

      const held = await leaseSpec(namespace.name, "berth-test");
      expect(held.holderIdentity).toBe("replica-a");
      await a.manager.stop();
      await until(() => b.manager.isLeader(), 40_000, "b takes over");
      // By the lease's own record, b took it before a's last renewal seen here would have expired:
      // released, not waited out.
      const taken = await leaseSpec(namespace.name, "berth-test");
      expect(taken.holderIdentity).toBe("replica-b");
      const lease = (held.leaseDurationSeconds ?? 0) * 1000;
      expect(Date.parse(taken.acquireTime ?? "") - Date.parse(held.renewTime ?? "")).toBeLessThan(lease);
      await until(() => b.reconciled.length >= 2, 10_000, "b reconciles");
      expect(a.manager.isLeader()).toBe(false);
    } finally {
      await stopAll(a, b);
    }
  }, 90_000);

  it("waits out the lease of a leader that vanished without releasing it, then takes over", async () => {
    const ghostRenewedAt = Date.now();
    const leases = `/apis/coordination.k8s.io/v1/namespaces/${namespace.name}/leases`;
    const kit = runtimeKit(config);
    await kit.client.call("POST", leases, {
      body: {
        apiVersion: "coordination.k8s.io/v1",
        kind: "Lease",
        metadata: { name: "berth-crash" },
        spec: {
          holderIdentity: "crashed-replica",
          leaseDurationSeconds: 15,
          acquireTime: microTime(ghostRenewedAt),
          renewTime: microTime(ghostRenewedAt),
          leaseTransitions: 0,
        },
      },
    });
    await kit.client.close();
    const b = replica("replica-b", namespace.name, "berth-crash");
    try {
      await b.manager.start();
      await until(() => b.manager.isLeader(), 40_000, "b takes over the expired lease");
      // By the lease's own record, b took it only once the ghost's 15 s had run out.
      const taken = await leaseSpec(namespace.name, "berth-crash");
      expect(taken.holderIdentity).toBe("replica-b");
      expect(Date.parse(taken.acquireTime ?? "") - ghostRenewedAt).toBeGreaterThanOrEqual(15_000);
    } finally {
      await stopAll(b);
    }
  }, 60_000);

  it("stops its controllers at once and reports the loss when another holder takes the lease", async () => {
    let lost = false;
    const a = replica(
      "replica-a",
      namespace.name,
      "berth-lost",
      () => {
        lost = true;
      },
      { leaseDurationMs: 4000, renewDeadlineMs: 2000, retryPeriodMs: 500 },
    );
    try {
      await a.manager.start();
      await until(() => a.manager.isLeader(), 10_000, "a leads");
      // Someone else overwrites the lease (a split brain, a manual edit): a's renewals now fail.
      const path = `/apis/coordination.k8s.io/v1/namespaces/${namespace.name}/leases/berth-lost`;
      const lease = (await a.kit.client.call("GET", path)) as { spec: Record<string, unknown> };
      const now = microTime(Date.now());
      await a.kit.client.call("PUT", path, {
        body: {
          ...lease,
          spec: { ...lease.spec, holderIdentity: "intruder", renewTime: now, leaseDurationSeconds: 60 },
        },
      });
      await until(() => lost, 10_000, "leadership lost");
      expect(a.manager.isLeader()).toBe(false);
      expect(await counterValue(a.kit.metrics, "leader_election_master_status")).toBe(0);
      await server.create(namespace.name, "after-loss");
      // Its informer (still watching) holds the new object: a running controller would reconcile it.
      await until(() => a.informer.get(`${namespace.name}/after-loss`) !== undefined, 10_000, "a sees it");
      expect(a.reconciled).not.toContain(`${namespace.name}/after-loss`);
    } finally {
      await stopAll(a);
    }
  });

  it("serves /healthz, /readyz (after informers sync) and /metrics, and drains on stop", async () => {
    await server.create(namespace.name, "w1");
    const kit = runtimeKit(config);
    const informer = new Informer({
      client: kit.client,
      type: widgetType,
      logger: kit.logger,
      metrics: kit.metrics.watch,
    });
    let inFlight = 0;
    let finished = 0;
    const controller = new Controller({
      name: "widgets",
      informer,
      logger: kit.logger,
      metrics: kit.metrics,
      reconcile: async () => {
        inFlight += 1;
        await new Promise((resolve) => setTimeout(resolve, 500));
        inFlight -= 1;
        finished += 1;
        return Outcome.done();
      },
    });
    const manager = new Manager({
      logger: kit.logger,
      metrics: kit.metrics,
      healthAddr: "127.0.0.1:0",
      metricsAddr: "127.0.0.1:0",
    });
    manager.addInformer(informer).addController(controller);
    expect(manager.ready()).toBe(false);
    await manager.start();
    expect((await get(manager.addresses.health, "/healthz")).status).toBe(200);
    await until(async () => (await get(manager.addresses.health, "/readyz")).status === 200, 10_000, "ready");
    await until(() => inFlight === 1, 10_000, "a reconcile in flight");

    const metrics = await get(manager.addresses.metrics, "/metrics");
    expect(metrics.status).toBe(200);
    for (const name of [
      "controller_runtime_max_concurrent_reconciles",
      "controller_runtime_active_workers",
      "workqueue_adds_total",
      "workqueue_unfinished_work_seconds",
    ]) {
      expect(metrics.body).toContain(name);
    }
    expect((await get(manager.addresses.health, "/nope")).status).toBe(404);

    await manager.stop();
    expect(inFlight).toBe(0);
    expect(finished).toBeGreaterThanOrEqual(1);
    await expect(fetch(`http://${manager.addresses.health}/healthz`)).rejects.toThrow();
    await kit.client.close();
  });
});
