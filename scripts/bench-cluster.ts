// What the operator benchmarks with a sped-up clock share (bench-saturation.ts, bench-restart.ts):
// a local control plane, `berth simulator` in its own process (harsh defaults, clock ×speed), one
// namespace with the simulator's demo key as its credentials, the Apps and Projects of that
// namespace followed with watches, and the real operator in a forked child (startOperator) whose
// rate-limit window, polls and drift interval are scaled by the same speed. BENCH_LOG_LEVEL=debug
// logs the operator's deferrals and hosting calls to the benchmark's stdout.
import { type ChildProcess, fork } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { KubeConfig } from "@kubernetes/client-node";
import { Registry } from "prom-client";
import { installCrds } from "../src/api/install.ts";
import { startControlPlane } from "../src/control-plane/control-plane.ts";
import { defaultSettings } from "../src/controllers/service/deps.ts";
import { startOperator } from "../src/operator/index.ts";
import { Informer, KubeClient, type KubeObject } from "../src/runtime/index.ts";
import { createLogger } from "../src/telemetry/logger.ts";
import { createMetrics } from "../src/telemetry/metrics.ts";
import {
  credentialedNamespace,
  type SimulatorProcess,
  scaledPolls,
  serveUntilTerminated,
  startSimulatorProcess,
  stopChild,
} from "./bench-support.ts";

export interface BenchClusterOptions {
  namespace: string;
  /** Simulated seconds per real second, for the simulator and the operator's timings. */
  speed: number;
  /** The operator's `--drift-interval`, in simulated seconds. */
  driftSec: number;
}

export interface BenchCluster {
  client: KubeClient;
  simulator: SimulatorProcess;
  /** Every App and Project of the namespace, as `apps/name` or `projects/name`. */
  objects: Map<string, KubeObject>;
  /** Forks the operator and resolves once its informers synced. */
  startOperator(): Promise<ChildProcess>;
  create(plural: "apps" | "projects", name: string, spec: Record<string, unknown>): Promise<void>;
  patchApp(name: string, spec: Record<string, unknown>): Promise<void>;
  stop(): Promise<void>;
}

export async function startBenchCluster(options: BenchClusterOptions): Promise<BenchCluster> {
  const { namespace, speed, driftSec } = options;
  const logger = createLogger({ level: "warn" });
  const dir = await mkdtemp(path.join(os.tmpdir(), `berth-bench-${namespace}-`));
  const controlPlane = await startControlPlane({ dir, logger });
  const simulator = await startSimulatorProcess(speed);
  const children = new Set<ChildProcess>();
  const config = new KubeConfig();
  config.loadFromFile(controlPlane.kubeconfigPath);
  const client = new KubeClient(config);
  await installCrds(config);
  await credentialedNamespace(client, namespace, simulator);
  const followed = await follow(client, namespace, logger);
  const base = `/apis/berth.dev/v1alpha1/namespaces/${namespace}`;
  return {
    client,
    simulator,
    objects: followed.objects,
    async startOperator() {
      const child = fork(fileURLToPath(import.meta.url), [], {
        env: {
          ...process.env,
          BENCH_ROLE: "operator",
          BENCH_KUBECONFIG: controlPlane.kubeconfigPath,
          BENCH_NAMESPACE: namespace,
          BENCH_SPEED: String(speed),
          BENCH_DRIFT_SEC: String(driftSec),
        },
      });
      children.add(child);
      child.once("exit", () => children.delete(child));
      await new Promise<void>((resolve, reject) => {
        child.once("message", () => resolve());
        child.once("exit", (code) => reject(new Error(`operator exited with ${code}`)));
      });
      return child;
    },
    async create(plural, name, spec) {
      await client.call("POST", `${base}/${plural}`, {
        body: {
          apiVersion: "berth.dev/v1alpha1",
          kind: plural === "apps" ? "App" : "Project",
          metadata: { name },
          spec,
        },
      });
    },
    async patchApp(name, spec) {
      await client.call("PATCH", `${base}/apps/${name}`, {
        body: { spec },
        contentType: "application/merge-patch+json",
      });
    },
    async stop() {
      await followed.stop();
      await client.close();
      for (const child of children) await stopChild(child);
      await simulator.stop();
      await controlPlane.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** An image App of Project `p`, as the benchmarks run them. */
export function imageApp(image = "nginx:1.27"): Record<string, unknown> {
  return { projectRef: { name: "p" }, image, ports: [{ port: 80, protocol: "http80_load_balancer" }] };
}

/** Ready at its current generation. */
export function settled(object: KubeObject | undefined): boolean {
  const status = object?.status as
    | { observedGeneration?: number; conditions?: { type: string; status: string }[] }
    | undefined;
  return (
    object !== undefined &&
    status?.observedGeneration === object.metadata.generation &&
    (status?.conditions ?? []).some((c) => c.type === "Ready" && c.status === "True")
  );
}

export function countSettled(objects: Map<string, KubeObject>, prefix: string): number {
  let count = 0;
  for (const [name, object] of objects) if (name.startsWith(prefix) && settled(object)) count++;
  return count;
}

async function follow(client: KubeClient, namespace: string, logger: ReturnType<typeof createLogger>) {
  const objects = new Map<string, KubeObject>();
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
  return {
    objects,
    stop: async () => {
      await Promise.all(informers.map((i) => i.stop()));
    },
  };
}

/** The forked child: the operator on the namespace, its timings scaled by the clock's speed. */
async function operatorChild(): Promise<void> {
  const speed = Number(process.env.BENCH_SPEED);
  const driftSec = Number(process.env.BENCH_DRIFT_SEC);
  const config = new KubeConfig();
  config.loadFromFile(process.env.BENCH_KUBECONFIG ?? "");
  const scale = (ms: number) => Math.max(50, Math.round(ms / speed));
  const polls = scaledPolls(scale);
  const running = await startOperator(
    {
      namespaces: [process.env.BENCH_NAMESPACE ?? ""],
      metricsAddr: "",
      healthAddr: "",
      logLevel: "warn",
      driftInterval: `${Math.max(1000, Math.round((driftSec * 1000) / speed))}ms`,
    },
    {
      logger: createLogger({ level: process.env.BENCH_LOG_LEVEL ?? "warn" }),
      registry: new Registry(),
      kubeConfig: config,
      hosting: { limits: { windowMs: 60_000 / speed }, maxBudgetWaitMs: scale(1000) },
      settings: { polls, stalledRetryMs: scale(defaultSettings.stalledRetryMs) },
    },
  );
  await serveUntilTerminated(running);
}

if (process.env.BENCH_ROLE === "operator") await operatorChild();
