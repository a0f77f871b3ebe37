// Saturation benchmark (issue 26): changes go first while drift asks for more than the budget.
//
//   node scripts/bench-saturation.ts   (BENCH_RUNNING=300 BENCH_NEW=10 BENCH_DRIFT_SEC=20 BENCH_SPEED=20)
//
// One key (the simulator's demo key, 300 calls a simulated minute), a local control plane, the
// simulator (harsh defaults, clock sped up BENCH_SPEED times) and the operator (a forked child
// running startOperator, its rate-limit window, polls and drift interval scaled by the same speed).
// BENCH_RUNNING image Apps are brought to Ready; with drift every BENCH_DRIFT_SEC simulated seconds
// drift asks for about 3× the key's budget. Then BENCH_NEW new Apps and one image change are
// applied at once. Printed, in simulated seconds: time to Ready of the new Apps and of the changed
// App (target ≤ 20 s), the calls and 429s meanwhile (target 0), and the longest gap between two
// drift reads of one App (target ≤ 3× the drift interval).
import { type ChildProcess, fork } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { KubeConfig } from "@kubernetes/client-node";
import { Registry } from "prom-client";
import { z } from "zod";
import { installCrds } from "../src/api/install.ts";
import { startControlPlane } from "../src/control-plane/control-plane.ts";
import { defaultSettings } from "../src/controllers/shared/deps.ts";
import { startOperator } from "../src/operator/index.ts";
import { Informer, KubeClient, type KubeObject } from "../src/runtime/index.ts";
import { createLogger } from "../src/telemetry/logger.ts";
import { createMetrics } from "../src/telemetry/metrics.ts";
import {
  inParallel,
  report,
  type SimulatorProcess,
  sleep,
  startSimulatorProcess,
  statsBetween,
  stopChild,
  until,
} from "./bench-support.ts";

const running = Number(process.env.BENCH_RUNNING ?? 300);
const fresh = Number(process.env.BENCH_NEW ?? 10);
const driftSec = Number(process.env.BENCH_DRIFT_SEC ?? 20);
const speed = Number(process.env.BENCH_SPEED ?? 20);
const namespace = "saturation";
const windowMs = 60_000 / speed;
const base = `/apis/berth.dev/v1alpha1/namespaces/${namespace}`;
const simulated = (realMs: number) => `${((realMs * speed) / 1000).toFixed(1)} s`;

async function parent(): Promise<void> {
  const logger = createLogger({ level: "warn" });
  const dir = await mkdtemp(path.join(os.tmpdir(), "berth-bench-saturation-"));
  const controlPlane = await startControlPlane({ dir, logger });
  const simulator = await startSimulatorProcess(speed);
  let child: ChildProcess | undefined;
  try {
    const config = new KubeConfig();
    config.loadFromFile(controlPlane.kubeconfigPath);
    const client = new KubeClient(config);
    await installCrds(config);
    await client.call("POST", "/api/v1/namespaces", { body: { metadata: { name: namespace } } });
    await client.call("POST", `/api/v1/namespaces/${namespace}/secrets`, {
      body: {
        metadata: { name: "berth-credentials" },
        stringData: { apiKey: simulator.key, baseUrl: simulator.baseUrl },
      },
    });
    child = fork(fileURLToPath(import.meta.url), [], {
      env: { ...process.env, BENCH_ROLE: "operator", BENCH_KUBECONFIG: controlPlane.kubeconfigPath },
    });
    await new Promise<void>((resolve, reject) => {
      child?.once("message", () => resolve());
      child?.once("exit", (code) => reject(new Error(`operator exited with ${code}`)));
    });
    const objects = await follow(client, logger);
    await create(client, "projects", "p", {});
    await until(async () => settled(objects.get("projects/p")), 60_000);
    await inParallel(running, 16, (i) => create(client, "apps", `run-${i}`, app()));
    await until(async () => countSettled(objects, "apps/run-") === running, 600_000);
    // Drift now asks for its reads; let it saturate the budget for a few windows.
    await sleep(3 * windowMs);

    const before = await simulator.stats();
    const measuredFrom = Math.max(...(await simulator.requests()).map((r) => Date.parse(r.at)));
    const started = Date.now();
    const changed = "run-0";
    await client.call("PATCH", `${base}/apps/${changed}`, {
      body: { spec: { image: "nginx:1.28" } },
      contentType: "application/merge-patch+json",
    });
    await inParallel(fresh, fresh, (i) => create(client, "apps", `new-${i}`, app()));
    let changedMs: number | undefined;
    await until(async () => {
      if (changedMs === undefined && settled(objects.get(`apps/${changed}`)))
        changedMs = Date.now() - started;
      return changedMs !== undefined && countSettled(objects, "apps/new-") === fresh;
    }, 600_000);
    const newMs = Date.now() - started;
    // Drift keeps going for three intervals after the change, to see it still reads every App.
    await sleep(Math.max(0, (3 * driftSec * 1000) / speed - newMs));
    const delta = statsBetween(before, await simulator.stats());
    const gap = await longestDriftGap(simulator, running, measuredFrom);

    report("running Apps, drift", `${running}, every ${driftSec} s (simulated; clock ×${speed})`);
    report("new Apps Ready", `${fresh} in ${simulated(newMs)}   (target ≤ 20 s; was 251 s)`);
    report("changed App Ready", `${simulated(changedMs ?? Number.NaN)}   (target ≤ 20 s)`);
    report("calls meanwhile", `${delta.calls}, ${delta.limited} × 429   (target 0 × 429)`);
    report(
      "drift meanwhile",
      `${gap.appsRead} of ${running} Apps read; longest gap ${gap.longestSec.toFixed(1)} s   (target ≤ ${3 * driftSec} s)`,
    );
    await objects.stop();
    await client.close();
  } finally {
    if (child !== undefined) await stopChild(child);
    await simulator.stop();
    await controlPlane.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

function app(): Record<string, unknown> {
  return {
    projectRef: { name: "p" },
    image: "nginx:1.27",
    ports: [{ port: 80, protocol: "http80_load_balancer" }],
  };
}

async function create(client: KubeClient, plural: string, name: string, spec: Record<string, unknown>) {
  await client.call("POST", `${base}/${plural}`, {
    body: {
      apiVersion: "berth.dev/v1alpha1",
      kind: plural === "apps" ? "App" : "Project",
      metadata: { name },
      spec,
    },
  });
}

/**
 * Since `from` (simulated epoch ms): how many Apps drift read, and the longest time in simulated
 * seconds one of them went unread (from `from`, between reads, until the last request).
 */
async function longestDriftGap(
  simulator: SimulatorProcess,
  apps: number,
  from: number,
): Promise<{ appsRead: number; longestSec: number }> {
  const control = simulator.baseUrl.replace(/\/v1$/, "/_sim");
  const body = await (await fetch(`${control}/requests`)).json();
  const items = z
    .object({
      items: z.array(z.object({ at: z.string(), operation: z.string().nullable(), path: z.string() })),
    })
    .parse(body)
    .items.filter((r) => Date.parse(r.at) >= from);
  const reads = new Map<string, number[]>();
  for (const r of items) {
    if (r.operation !== "getApp") continue;
    const id = r.path.split("/apps/")[1]?.split("/")[0] ?? "";
    reads.set(id, [...(reads.get(id) ?? []), Date.parse(r.at)]);
  }
  const to = Math.max(...items.map((r) => Date.parse(r.at)));
  let longest = 0;
  for (const times of reads.values()) {
    const points = [from, ...times.sort((x, y) => x - y), to];
    for (let i = 1; i < points.length; i++)
      longest = Math.max(longest, (points[i] ?? 0) - (points[i - 1] ?? 0));
  }
  return { appsRead: Math.min(reads.size, apps), longestSec: longest / 1000 };
}

type Followed = Map<string, KubeObject> & { stop(): Promise<void> };

/** Every App and Project of the namespace, as `plural/name`, followed with watches. */
async function follow(client: KubeClient, logger: ReturnType<typeof createLogger>): Promise<Followed> {
  const objects = new Map<string, KubeObject>() as Followed;
  const informers = ["apps", "projects"].map((plural) => {
    const informer = new Informer({
      client,
      type: { group: "berth.dev", version: "v1alpha1", plural, kind: plural === "apps" ? "App" : "Project" },
      logger,
      metrics: createMetrics(new Registry()).watch,
      namespaces: [namespace],
    });
    const keep = (object: KubeObject) => objects.set(`${plural}/${object.metadata.name}`, object);
    informer.on({ add: keep, update: (_, object) => keep(object) });
    informer.start();
    return informer;
  });
  await Promise.all(informers.map((i) => i.waitForSync()));
  objects.stop = async () => {
    await Promise.all(informers.map((i) => i.stop()));
  };
  return objects;
}

/** Ready at its current generation. */
function settled(object: KubeObject | undefined): boolean {
  const status = object?.status as
    | { observedGeneration?: number; conditions?: { type: string; status: string }[] }
    | undefined;
  return (
    object !== undefined &&
    status?.observedGeneration === object.metadata.generation &&
    (status?.conditions ?? []).some((c) => c.type === "Ready" && c.status === "True")
  );
}

function countSettled(objects: Map<string, KubeObject>, prefix: string): number {
  let count = 0;
  for (const [name, object] of objects) if (name.startsWith(prefix) && settled(object)) count++;
  return count;
}

async function operator(): Promise<void> {
  const config = new KubeConfig();
  config.loadFromFile(process.env.BENCH_KUBECONFIG ?? "");
  const scale = (ms: number) => Math.max(50, Math.round(ms / speed));
  const { startingMs, wiringMs, stoppingMs, buildingMs, waitingMs } = defaultSettings.polls;
  const polls = {
    startingMs: scale(startingMs),
    wiringMs: scale(wiringMs),
    stoppingMs: scale(stoppingMs),
    buildingMs: scale(buildingMs),
    waitingMs: scale(waitingMs),
  };
  const operatorRunning = await startOperator(
    {
      namespaces: [namespace],
      metricsAddr: "",
      healthAddr: "",
      logLevel: "warn",
      driftInterval: `${Math.max(1000, Math.round((driftSec * 1000) / speed))}ms`,
    },
    {
      logger: createLogger({ level: "warn" }),
      registry: new Registry(),
      kubeConfig: config,
      hosting: { limits: { windowMs }, maxBudgetWaitMs: scale(1000) },
      settings: { polls, stalledRetryMs: scale(defaultSettings.stalledRetryMs) },
    },
  );
  await operatorRunning.ready;
  process.send?.("ready");
  await new Promise<void>((resolve) => process.once("SIGTERM", () => resolve()));
  await operatorRunning.stop();
  process.exit(0);
}

if (process.env.BENCH_ROLE === "operator") await operator();
else await parent();
