// Benchmark of the operator against the simulator with its real default rate limits.
//
//   node scripts/bench-operator.ts   (BENCH_APPS=1000 BENCH_SPEED=20 to change; BENCH_WORKERS=N sets
//                                     --concurrency, default the operator's own; BENCH_TIMELINE=1
//                                     prints the hosting calls per second)
//
// The parent starts a local control plane, the simulator (`berth simulator`, its clock sped up
// BENCH_SPEED times, default limits: 300 requests per simulated minute per credential) and the
// operator (a forked child running startOperator), applies BENCH_APPS image Apps at once and waits
// until all are Ready. It prints the hosting calls per app (GET /me excluded; target ≤ 2.05), the
// 429s (target 0) and the total time against the lower bound the rate limit allows (target ≤ 1.15×).
// The operator's own timings are scaled by the same speed: its rate-limit window, as the service's.
import { type ChildProcess, fork } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { KubeConfig } from "@kubernetes/client-node";
import { Registry } from "prom-client";
import { installCrds } from "../src/api/install.ts";
import { startControlPlane } from "../src/control-plane/control-plane.ts";
import { startOperator } from "../src/operator/index.ts";
import { Informer, KubeClient, type KubeObject } from "../src/runtime/index.ts";
import { createLogger } from "../src/telemetry/logger.ts";
import { createMetrics } from "../src/telemetry/metrics.ts";
import {
  cpuSeconds,
  credentialedNamespace,
  inParallel,
  report,
  scaledPolls,
  serveUntilTerminated,
  startSimulatorProcess,
  stopChild,
  until,
  withTimeout,
} from "./bench-support.ts";

const apps = Number(process.env.BENCH_APPS ?? 1000);
const speed = Number(process.env.BENCH_SPEED ?? 20);
const workers = process.env.BENCH_WORKERS === undefined ? undefined : Number(process.env.BENCH_WORKERS);
const namespace = "bench";
const perWindow = 300;
const windowMs = 60_000 / speed;
const base = "/apis/berth.dev/v1alpha1/namespaces/bench";

async function parent(): Promise<void> {
  const logger = createLogger({ level: "warn" });
  const dir = await mkdtemp(path.join(os.tmpdir(), "berth-bench-operator-"));
  const controlPlane = await startControlPlane({ dir, logger });
  const simulator = await startSimulatorProcess(speed);
  let child: ChildProcess | undefined;
  try {
    const config = new KubeConfig();
    config.loadFromFile(controlPlane.kubeconfigPath);
    const client = new KubeClient(config);
    await installCrds(config);
    await credentialedNamespace(client, namespace, simulator);
    child = fork(fileURLToPath(import.meta.url), [], {
      env: { ...process.env, BENCH_ROLE: "operator", BENCH_KUBECONFIG: controlPlane.kubeconfigPath },
    });
    await new Promise<void>((resolve, reject) => {
      child?.once("message", () => resolve());
      child?.once("exit", (code) => reject(new Error(`operator exited with ${code}`)));
    });
    await client.call("POST", `${base}/projects`, {
      body: { apiVersion: "berth.dev/v1alpha1", kind: "Project", metadata: { name: "bench" }, spec: {} },
    });
    await until(async () => {
      const project = await client.call("GET", `${base}/projects/bench`);
      return isReady(project as KubeObject);
    });
    // Let the project's calls leave the rate-limit window, so the measurement starts from a fresh budget.
    await new Promise((resolve) => setTimeout(resolve, windowMs + 500));
    const before = await simulator.requests();

    // Readiness is followed with a watch (an informer), not by listing a thousand objects again and again.
    const watched = new Informer({
      client,
      type: { group: "berth.dev", version: "v1alpha1", plural: "apps", kind: "App" },
      logger,
      metrics: createMetrics(new Registry()).watch,
      namespaces: [namespace],
    });
    const ready = new Set<string>();
    let readyAt = 0;
    const allReady = new Promise<void>((resolve) => {
      const check = (object: KubeObject) => {
        if (!isReady(object)) return;
        ready.add(object.metadata.name);
        if (ready.size === apps) {
          readyAt = Date.now();
          resolve();
        }
      };
      watched.on({ add: check, update: (_, object) => check(object) });
    });
    watched.start();
    await watched.waitForSync();

    const cpuBefore = await Promise.all(
      [controlPlane.pid, child.pid, simulator.pid, process.pid].map(cpuSeconds),
    );
    const started = Date.now();
    await inParallel(apps, 32, (i) =>
      client.call("POST", `${base}/apps`, {
        body: {
          apiVersion: "berth.dev/v1alpha1",
          kind: "App",
          metadata: { name: `app-${i}` },
          spec: {
            projectRef: { name: "bench" },
            image: "nginx:1.27",
            ports: [{ port: 80, protocol: "http80_load_balancer" }],
          },
        },
      }),
    );
    const applied = Date.now();
    await withTimeout(allReady, 600_000, () => `only ${ready.size} of ${apps} Apps Ready after 10 min`);
    await watched.stop();
    const cpuAfter = await Promise.all(
      [controlPlane.pid, child.pid, simulator.pid, process.pid].map(cpuSeconds),
    );
    const cpu = cpuAfter.map((after, i) => (after - (cpuBefore[i] ?? 0)).toFixed(1));
    const requests = (await simulator.requests()).slice(before.length);
    const calls = requests.filter((r) => r.operation !== "getMe");
    const limited = requests.filter((r) => r.status === 429).length;
    const firstCall = Date.parse(calls[0]?.at ?? "");
    const total = (readyAt - started) / 1000;
    // The fewest calls that bring an App to Ready: its create and one status read. At the sustained
    // rate (perWindow per window), and with each window's whole allowance used in one burst at its
    // start (fixed windows, as the simulator counts), where the last batch leaves (batches − 1)
    // windows after the first. Either way, plus the app's own start.
    const minimumCalls = 2 * apps;
    const appStart = (3 + 1) / speed;
    const sustained = (minimumCalls / perWindow) * (windowMs / 1000) + appStart;
    const bursts = ((Math.ceil(minimumCalls / perWindow) - 1) * windowMs) / 1000 + appStart;
    const byOperation = new Map<string, number>();
    for (const r of calls)
      byOperation.set(r.operation ?? "?", (byOperation.get(r.operation ?? "?") ?? 0) + 1);
    report(
      "apps applied",
      `${apps} in ${((applied - started) / 1000).toFixed(1)} s (kubectl-style creates, 32 at a time)`,
    );
    report("all Ready after", `${total.toFixed(1)} s from the first apply`);
    report(
      "rate-limit lower bound",
      `${sustained.toFixed(1)} s at the sustained rate, ${bursts.toFixed(1)} s with a full burst every window ` +
        `(${minimumCalls} calls, ${perWindow} per ${windowMs / 1000} s window, + app start)`,
    );
    report(
      "time / lower bound",
      `${(total / sustained).toFixed(2)}× sustained, ${(total / bursts).toFixed(2)}× bursts   (target ≤ 1.15×)`,
    );
    report("hosting calls per app", `${(calls.length / apps).toFixed(2)}   (target ≤ 2.05; /me excluded)`);
    report("  by operation", [...byOperation].map(([op, n]) => `${op} ${n}`).join(", "));
    report("429 responses", `${limited}   (target 0)`);
    report(
      "early polls",
      `${(await simulator.stats()).earlyPolls.total}   (target 0; reads before pollAfterSec)`,
    );
    report(
      "CPU seconds",
      `control plane ${cpu[0]}, operator ${cpu[1]}, simulator ${cpu[2]}, bench ${cpu[3]} (2 cores)`,
    );
    if (process.env.BENCH_TIMELINE === "1") {
      // Hosting calls per wall-clock second since the first one (sim time divided by the speed).
      const perSecond = new Map<number, number[]>();
      for (const r of calls) {
        const second = Math.floor((Date.parse(r.at) - firstCall) / speed / 1000);
        const [all = 0, creates = 0] = perSecond.get(second) ?? [];
        perSecond.set(second, [all + 1, creates + (r.operation === "createApp" ? 1 : 0)]);
      }
      for (const [second, [all, creates]] of perSecond)
        report(`  t+${second}s`, `${all} calls, ${creates} creates`);
    }
    await client.close();
  } finally {
    if (child !== undefined) await stopChild(child);
    await simulator.stop();
    await controlPlane.stop();

    await rm(dir, { recursive: true, force: true });
  }
}

async function operator(): Promise<void> {
  const config = new KubeConfig();
  config.loadFromFile(process.env.BENCH_KUBECONFIG ?? "");
  const scale = (ms: number) => Math.max(50, Math.round(ms / speed));
  const polls = scaledPolls(scale);
  const running = await startOperator(
    {
      namespaces: [namespace],
      metricsAddr: "",
      healthAddr: "",
      logLevel: "warn",
      ...(workers === undefined ? {} : { concurrency: workers }),
    },
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

function isReady(object: KubeObject): boolean {
  const conditions = (object.status as { conditions?: { type: string; status: string }[] } | undefined)
    ?.conditions;
  return (conditions ?? []).some((c) => c.type === "Ready" && c.status === "True");
}

if (process.env.BENCH_ROLE === "operator") await operator();
else await parent();
