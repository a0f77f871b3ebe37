// Fairness benchmark: one tenant's throttled key never slows another tenant down.
//
//   node scripts/bench-fairness.ts   (BENCH_HELD=500 BENCH_NEW=10 BENCH_ROUNDS=3 BENCH_SPEED=20 to change)
//
// Two users, each with a key and a Project: A and B. First, B's BENCH_NEW new Apps are brought to
// Ready with A absent (BENCH_ROUNDS batches, one after another). Then A gets BENCH_HELD Apps (all
// Ready), the simulator answers every call of A's key 429 with Retry-After 60 s, every one of A's
// Apps is changed (500 reconciles queued at once, each wanting a PATCH), and B's new Apps are
// applied again. Target: B's Apps reach Ready within 1.2× their time with A absent (medians).
// The simulator and the operator's rate-limit window are sped up BENCH_SPEED times; Retry-After is
// honoured in real seconds, so A stays paused for the whole measurement.
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
import { startOperator } from "../src/operator/index.ts";
import { Informer, KubeClient, type KubeObject } from "../src/runtime/index.ts";
import { createLogger } from "../src/telemetry/logger.ts";
import { createMetrics } from "../src/telemetry/metrics.ts";
import {
  inParallel,
  report,
  type SimulatorProcess,
  scaledPolls,
  serveUntilTerminated,
  startSimulatorProcess,
  stopChild,
  until,
  withTimeout,
} from "./bench-support.ts";

const held = Number(process.env.BENCH_HELD ?? 500);
const fresh = Number(process.env.BENCH_NEW ?? 10);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const speed = Number(process.env.BENCH_SPEED ?? 20);
const retryAfterSec = 60;
const namespace = "fairness";
const windowMs = 60_000 / speed;
const base = `/apis/berth.dev/v1alpha1/namespaces/${namespace}`;

interface Tenant {
  name: "a" | "b";
  keyId: string;
}

async function parent(): Promise<void> {
  const logger = createLogger({ level: "warn" });
  const dir = await mkdtemp(path.join(os.tmpdir(), "berth-bench-fairness-"));
  const controlPlane = await startControlPlane({ dir, logger });
  const simulator = await startSimulatorProcess(speed);
  let child: ChildProcess | undefined;
  try {
    const config = new KubeConfig();
    config.loadFromFile(controlPlane.kubeconfigPath);
    const client = new KubeClient(config);
    await installCrds(config);
    await client.call("POST", "/api/v1/namespaces", { body: { metadata: { name: namespace } } });
    const a = await tenant(client, simulator, "a");
    const b = await tenant(client, simulator, "b");
    child = fork(fileURLToPath(import.meta.url), [], {
      env: { ...process.env, BENCH_ROLE: "operator", BENCH_KUBECONFIG: controlPlane.kubeconfigPath },
    });
    await new Promise<void>((resolve, reject) => {
      child?.once("message", () => resolve());
      child?.once("exit", (code) => reject(new Error(`operator exited with ${code}`)));
    });
    const ready = await readiness(client, logger);
    for (const t of [a, b]) await applyProject(client, t);
    await until(async () => ready.has(`projects/a`) && ready.has(`projects/b`));

    const alone: number[] = [];
    for (let round = 0; round < rounds; round++) alone.push(await bringUp(client, ready, `alone-${round}`));

    // A's Apps are applied; once a tenth of them are Ready, the service answers every call of A's
    // key 429 (Retry-After 60 s): the rest wait on A's paused key while B's new Apps come.
    await inParallel(held, 32, (i) => applyApp(client, `a-${i}`, a, "1"));
    await until(async () => countReady(ready, "apps/a-") >= held / 10, 120_000);
    await control(simulator, "POST", "/faults", {
      operation: "*",
      status: 429,
      retryAfterSec,
      keyId: a.keyId,
    });
    const stormStarted = Date.now();
    // A's reconciles in flight meet the 429 and requeue after the Retry-After.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const contended: number[] = [];
    for (let round = 0; round < rounds; round++)
      contended.push(await bringUp(client, ready, `contended-${round}`));
    const aReady = countReady(ready, "apps/a-");
    // Harsher: every one of A's Apps changes at once too (500 PATCHes to the API server, a reconcile
    // and a status write each), while B's Apps are applied.
    await new Promise((resolve) => setTimeout(resolve, windowMs + 500));
    const changed = inParallel(held, 32, (i) => changeApp(client, `a-${i}`));
    const burst = await bringUp(client, ready, "burst", false);
    await changed;
    const stormSec = (Date.now() - stormStarted) / 1000;
    const requests = z
      .object({ items: z.array(z.object({ status: z.number(), keyId: z.string().nullable() })) })
      .parse(await control(simulator, "GET", "/requests")).items;
    const refused = requests.filter((r) => r.keyId === a.keyId && r.status === 429).length;

    const medianAlone = median(alone);
    const medianContended = median(contended);
    report("B's new Apps per round", `${fresh}, ${rounds} rounds`);
    report("B alone (A absent)", `${alone.map(seconds).join(", ")}; median ${seconds(medianAlone)}`);
    report(
      "B beside A paused",
      `${contended.map(seconds).join(", ")}; median ${seconds(medianContended)} (A: ${held} Apps, ${aReady} Ready, the rest waiting out a ${retryAfterSec} s Retry-After)`,
    );
    report("ratio", `${(medianContended / medianAlone).toFixed(2)}×   (target ≤ 1.2×)`);
    report(
      "B while A's Apps all change",
      `${seconds(burst)} (${(burst / medianAlone).toFixed(2)}×; ${held} spec changes at once on the API server)`,
    );
    report(
      "A's calls while paused",
      `${refused} answered 429 in ${stormSec.toFixed(1)} s (a paused key is not called until its Retry-After)`,
    );
    await ready.stop();
    await client.close();
  } finally {
    if (child !== undefined) await stopChild(child);
    await simulator.stop();
    await controlPlane.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

/** A user with a key, and its credentials Secret. */
async function tenant(
  client: KubeClient,
  simulator: SimulatorProcess,
  name: Tenant["name"],
): Promise<Tenant> {
  const user = z
    .object({ id: z.string() })
    .parse(await control(simulator, "POST", "/users", { email: `${name}@bench.test`, balance: 1_000_000 }));
  const key = z
    .object({ id: z.string(), token: z.string() })
    .parse(await control(simulator, "POST", "/keys", { userId: user.id }));
  await client.call("POST", `/api/v1/namespaces/${namespace}/secrets`, {
    body: {
      metadata: { name: `key-${name}` },
      stringData: { apiKey: key.token, baseUrl: simulator.baseUrl },
    },
  });
  return { name, keyId: key.id };
}

/** A call to the simulator's control API (`/_sim`). */
async function control(
  simulator: SimulatorProcess,
  method: string,
  route: string,
  body?: unknown,
): Promise<unknown> {
  const response = await fetch(`${simulator.baseUrl.replace(/\/v1$/, "/_sim")}${route}`, {
    method,
    headers: { "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!response.ok)
    throw new Error(`${method} /_sim${route}: HTTP ${response.status} ${await response.text()}`);
  return response.json();
}

async function applyProject(client: KubeClient, t: Tenant): Promise<void> {
  await client.call("POST", `${base}/projects`, {
    body: {
      apiVersion: "berth.dev/v1alpha1",
      kind: "Project",
      metadata: { name: t.name },
      spec: { credentialsRef: { name: `key-${t.name}` } },
    },
  });
}

async function applyApp(client: KubeClient, name: string, t: Tenant, value: string): Promise<void> {
  await client.call("POST", `${base}/apps`, {
    body: {
      apiVersion: "berth.dev/v1alpha1",
      kind: "App",
      metadata: { name },
      spec: {
        projectRef: { name: t.name },
        credentialsRef: { name: `key-${t.name}` },
        image: "nginx:1.27",
        ports: [{ port: 80, protocol: "http80_load_balancer" }],
        env: [{ name: "ROUND", value }],
      },
    },
  });
}

async function changeApp(client: KubeClient, name: string): Promise<void> {
  await client.call("PATCH", `${base}/apps/${name}`, {
    body: { spec: { env: [{ name: "ROUND", value: "2" }] } },
    contentType: "application/merge-patch+json",
  });
}

/**
 * Applies B's new Apps and returns how long until all are Ready (ms). Each round starts once B's
 * previous calls left the rate-limit window, so every round starts from the same budget.
 */
async function bringUp(
  client: KubeClient,
  ready: Readiness,
  label: string,
  waitForWindow = true,
): Promise<number> {
  const b: Tenant = { name: "b", keyId: "" };
  if (waitForWindow) await new Promise((resolve) => setTimeout(resolve, windowMs + 500));
  const started = Date.now();
  await inParallel(fresh, fresh, (i) => applyApp(client, `b-${label}-${i}`, b, "1"));
  await withTimeout(
    until(async () => countReady(ready, `apps/b-${label}-`) === fresh, 120_000),
    130_000,
    () => `B's ${label} Apps not Ready`,
  );
  return Date.now() - started;
}

type Readiness = Set<string> & { stop(): Promise<void> };

/** `plural/name` of every Ready App and Project, followed with watches. */
async function readiness(client: KubeClient, logger: ReturnType<typeof createLogger>): Promise<Readiness> {
  const ready = new Set<string>() as Readiness;
  const informers = ["apps", "projects"].map((plural) => {
    const informer = new Informer({
      client,
      type: { group: "berth.dev", version: "v1alpha1", plural, kind: plural === "apps" ? "App" : "Project" },
      logger,
      metrics: createMetrics(new Registry()).watch,
      namespaces: [namespace],
    });
    const check = (object: KubeObject) => {
      if (isReady(object)) ready.add(`${plural}/${object.metadata.name}`);
    };
    informer.on({ add: check, update: (_, object) => check(object) });
    informer.start();
    return informer;
  });
  await Promise.all(informers.map((i) => i.waitForSync()));
  ready.stop = async () => {
    await Promise.all(informers.map((i) => i.stop()));
  };
  return ready;
}

function countReady(ready: Set<string>, prefix: string): number {
  let count = 0;
  for (const name of ready) if (name.startsWith(prefix)) count++;
  return count;
}

function isReady(object: KubeObject): boolean {
  const conditions = (object.status as { conditions?: { type: string; status: string }[] } | undefined)
    ?.conditions;
  return (conditions ?? []).some((c) => c.type === "Ready" && c.status === "True");
}

function median(values: number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(2)} s`;
}

async function operator(): Promise<void> {
  const config = new KubeConfig();
  config.loadFromFile(process.env.BENCH_KUBECONFIG ?? "");
  const scale = (ms: number) => Math.max(50, Math.round(ms / speed));
  const polls = scaledPolls(scale);
  const running = await startOperator(
    { namespaces: [namespace], metricsAddr: "", healthAddr: "", logLevel: "warn" },
    {
      logger: createLogger({ level: "warn" }),
      registry: new Registry(),
      kubeConfig: config,
      hosting: { limits: { windowMs } },
      settings: { polls },
    },
  );
  await serveUntilTerminated(running);
}

if (process.env.BENCH_ROLE === "operator") await operator();
else await parent();
