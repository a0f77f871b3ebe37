import { randomBytes } from "node:crypto";
import { CoreV1Api } from "@kubernetes/client-node";
import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inParallel } from "../../scripts/bench-support.ts";
import { group, version } from "../../src/api/index.ts";
import { installCrds } from "../../src/api/install.ts";
import { defaultSettings } from "../../src/controllers/service/deps.ts";
import { type RunningOperator, startOperator } from "../../src/operator/index.ts";
import { Shard } from "../../src/operator/shard.ts";
import { KubeClient, type KubeObject } from "../../src/runtime/index.ts";
import { type RunningSimulator, startSimulator } from "../../src/simulator/index.ts";
import { createLogger } from "../../src/telemetry/logger.ts";
import { scrape } from "../deploy/helpers.ts";
import { kubeConfig } from "../support/kube.ts";

/**
 * Sharding as deploy/components/sharding sets it up: the default shard (`!berth.dev/shard`) and
 * two shards, each with its own Lease, sharing one namespace. Each operator falls back to its own
 * default credentials (the namespace has no berth-credentials), so the simulator's request log
 * tells by key which operator called the service for which App.
 */
const namespace = `shards-${randomBytes(4).toString("hex")}`;
const appsPerShard = 100;
const speed = 20;
const shards = [
  { name: "default", selector: "!berth.dev/shard" },
  { name: "shard1", selector: "berth.dev/shard in (shard1)" },
  { name: "shard2", selector: "berth.dev/shard in (shard2)" },
];
const admin = kubeConfig();
const kube = new KubeClient(admin);
const base = `/apis/${group}/${version}/namespaces/${namespace}`;
let simulator: RunningSimulator | undefined;
const operators: RunningOperator[] = [];
/** Shard name → the simulator key id of its operator's default credentials. */
const keyIds = new Map<string, string>();

function isReady(object: KubeObject): boolean {
  const conditions = (object.status as { conditions?: { type: string; status: string }[] } | undefined)
    ?.conditions;
  return conditions?.some((c) => c.type === "Ready" && c.status === "True") ?? false;
}

function isStalled(object: KubeObject): boolean {
  const conditions = (object.status as { conditions?: { type: string; status: string }[] } | undefined)
    ?.conditions;
  return conditions?.some((c) => c.type === "Stalled" && c.status === "True") ?? false;
}

async function listApps(): Promise<KubeObject[]> {
  return ((await kube.call("GET", `${base}/apps`)) as { items: KubeObject[] }).items;
}

/** Sums a counter's samples by one label, from Prometheus text. */
function countsBy(text: string, metric: string, label: string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const [, labels = "", value] of text.matchAll(new RegExp(`^${metric}\\{([^}]*)\\} (\\S+)$`, "gm"))) {
    const key = new RegExp(`${label}="([^"]*)"`).exec(labels)?.[1] ?? "";
    counts[key] = (counts[key] ?? 0) + Number(value);
  }
  return counts;
}

beforeAll(async () => {
  await installCrds(admin);
  const core = admin.makeApiClient(CoreV1Api);
  await core.createNamespace({ body: { metadata: { name: namespace } } });
  simulator = await startSimulator({
    controlApi: true,
    clockSpeed: speed,
    rateLimits: { perCredential: 100_000, perUser: 100_000 },
  });
  const user = simulator.sim.addUser({ email: `${namespace}@example.test`, balance: 100_000 });
  const scale = (ms: number) => Math.max(50, Math.round(ms / speed));
  const { startingMs, wiringMs, stoppingMs, buildingMs, waitingMs } = defaultSettings.polls;
  const polls = {
    startingMs: scale(startingMs),
    wiringMs: scale(wiringMs),
    stoppingMs: scale(stoppingMs),
    buildingMs: scale(buildingMs),
    waitingMs: scale(waitingMs),
  };
  for (const shard of shards) {
    const key = simulator.sim.addKey({ userId: user.id });
    keyIds.set(shard.name, key.id);
    await core.createNamespacedSecret({
      namespace,
      body: {
        metadata: { name: `key-${shard.name}` },
        stringData: { apiKey: key.token, baseUrl: simulator.baseUrl },
      },
    });
    const operator = await startOperator(
      {
        namespaces: [namespace],
        watchLabelSelector: shard.selector,
        defaultCredentials: `${namespace}/key-${shard.name}`,
        leaderElect: true,
        leaderElectionNamespace: namespace,
        metricsAddr: "127.0.0.1:0",
        metricsSecure: false,
        healthAddr: "",
        concurrency: 8,
        logLevel: "warn",
      },
      {
        logger: createLogger({ level: "warn" }),
        registry: new Registry(),
        kubeConfig: admin,
        hosting: { limits: { perCredential: 100_000, perUser: 100_000, windowMs: 60_000 / speed } },
        settings: { polls },
      },
    );
    operators.push(operator);
    await operator.ready;
  }
}, 120_000);

afterAll(async () => {
  for (const operator of operators) await operator.stop();
  await simulator?.close();
  await kube.close();
  await admin
    .makeApiClient(CoreV1Api)
    .deleteNamespace({ name: namespace })
    .catch(() => undefined);
});

describe("three shard operators, 300 Apps spread by label", () => {
  it("brings every App to Ready, each reconciled and served by its own shard's operator only", async () => {
    // The Project lives in the default shard; Apps in every shard use it.
    await kube.call("POST", `${base}/projects`, {
      body: { apiVersion: `${group}/${version}`, kind: "Project", metadata: { name: "shared" }, spec: {} },
    });
    const shardOf = (i: number) => shards[i % shards.length]?.name ?? "default";
    await inParallel(appsPerShard * shards.length, 16, (i) =>
      kube.call("POST", `${base}/apps`, {
        body: {
          apiVersion: `${group}/${version}`,
          kind: "App",
          metadata: {
            name: `app-${i}`,
            ...(shardOf(i) === "default" ? {} : { labels: { "berth.dev/shard": shardOf(i) } }),
          },
          spec: {
            projectRef: { name: "shared" },
            image: "docker.io/library/nginx:1.27-alpine",
            ports: [{ port: 80, protocol: "http80_load_balancer" }],
          },
        },
      }),
    );

    // Waited on while it progresses, however slow the machine: it fails when an App stalls, or
    // when no App changed for two minutes (then it is stuck, not slow).
    const versions = (list: KubeObject[]) => list.map((app) => app.metadata.resourceVersion).join();
    let apps = await listApps();
    let seen = versions(apps);
    let progressAt = Date.now();
    while (apps.filter(isReady).length < apps.length && Date.now() - progressAt < 120_000) {
      expect(
        apps.filter(isStalled).map((app) => app.metadata.name),
        "Stalled Apps",
      ).toEqual([]);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      apps = await listApps();
      if (versions(apps) !== seen) progressAt = Date.now();
      seen = versions(apps);
    }
    const notReady = apps.filter((app) => !isReady(app)).map((app) => app.metadata.name);
    expect(notReady, "not Ready, and no App changed for two minutes").toEqual([]);
    expect(apps).toHaveLength(appsPerShard * shards.length);

    // Each shard leads through its own Lease.
    const leases = (await kube.call(
      "GET",
      `/apis/coordination.k8s.io/v1/namespaces/${namespace}/leases`,
    )) as { items: KubeObject[] };
    expect(leases.items.map((lease) => lease.metadata.name).sort()).toEqual(
      shards.map((shard) => new Shard(shard.selector).leaseName).sort(),
    );

    // Reconciles per operator: only the default shard reconciles the (unlabelled) Project, and
    // every operator reconciled Apps.
    const reconciles: Record<string, Record<string, number>> = {};
    for (const [i, shard] of shards.entries()) {
      const { body } = await scrape(`http://${operators[i]?.addresses.metrics}/metrics`);
      reconciles[shard.name] = countsBy(body, "controller_runtime_reconcile_total", "controller");
    }
    console.log("controller_runtime_reconcile_total by shard and controller:", JSON.stringify(reconciles));
    expect(reconciles.default?.project).toBeGreaterThan(0);
    expect(reconciles.shard1?.project ?? 0).toBe(0);
    expect(reconciles.shard2?.project ?? 0).toBe(0);
    for (const shard of shards)
      expect(reconciles[shard.name]?.app, shard.name).toBeGreaterThanOrEqual(appsPerShard);

    // The service saw each App's calls under one key only: its shard's operator's.
    const requests = simulator?.sim.requests() ?? [];
    const keysByAppId = new Map<string, Set<string>>();
    for (const request of requests) {
      const appId = /\/apps\/([0-9a-f]{24})/.exec(request.path)?.[1];
      if (appId === undefined || request.keyId === null) continue;
      keysByAppId.set(appId, (keysByAppId.get(appId) ?? new Set()).add(request.keyId));
    }
    const creates = requests.filter(
      (r) => r.method === "POST" && /\/projects\/[0-9a-f]{24}\/apps$/.test(r.path),
    );
    const createsByKey = Object.fromEntries(
      shards.map((shard) => [shard.name, creates.filter((r) => r.keyId === keyIds.get(shard.name)).length]),
    );
    console.log("createApp requests by shard key:", JSON.stringify(createsByKey));
    for (const app of apps) {
      const appId = (app.status as { appId?: string } | undefined)?.appId ?? "";
      const shard = app.metadata.labels?.["berth.dev/shard"] ?? "default";
      expect([...(keysByAppId.get(appId) ?? [])], `${app.metadata.name} (${shard})`).toEqual([
        keyIds.get(shard),
      ]);
    }
    for (const shard of shards) expect(createsByKey[shard.name], shard.name).toBe(appsPerShard);
  }, 900_000);

  it("an App relabelled into another shard is served by that shard from then on", async () => {
    const moved = ["app-0", "app-3", "app-6"]; // default shard → shard1
    const requestedAt = new Date().toISOString();
    for (const name of moved) {
      await kube.call("PATCH", `${base}/apps/${name}`, {
        contentType: "application/merge-patch+json",
        body: { metadata: { labels: { "berth.dev/shard": "shard1" } } },
      });
    }
    const before = simulator?.sim.requests().length ?? 0;
    for (const name of moved) {
      await kube.call("PATCH", `${base}/apps/${name}`, {
        contentType: "application/merge-patch+json",
        body: { metadata: { annotations: { "berth.dev/reconcile-requested-at": requestedAt } } },
      });
    }
    const handled = async () => {
      const apps = await listApps();
      return apps.filter(
        (app) =>
          moved.includes(app.metadata.name) &&
          (app.status as { lastHandledReconcileAt?: string } | undefined)?.lastHandledReconcileAt ===
            requestedAt,
      );
    };
    for (let attempt = 0; attempt < 100 && (await handled()).length < moved.length; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const apps = await handled();
    expect(apps.map((app) => app.metadata.name).sort()).toEqual(moved.sort());
    const ids = new Set(apps.map((app) => (app.status as { appId?: string } | undefined)?.appId));
    const after = (simulator?.sim.requests() ?? []).slice(before);
    const keys = new Set(
      after.filter((r) => ids.has(/\/apps\/([0-9a-f]{24})/.exec(r.path)?.[1])).map((r) => r.keyId),
    );
    expect([...keys]).toEqual([keyIds.get("shard1")]);
  }, 60_000);
});
