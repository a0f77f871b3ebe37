// Benchmark of the controller runtime against a real local control plane.
//
//   node scripts/bench-runtime.ts      (BENCH_OBJECTS=10000 BENCH_UPDATES=1000 BENCH_WORKERS=10 to change)
//
// The parent process starts the control plane, creates the objects and sends the update bursts;
// a forked child runs only the operator side (informer + controller + status patcher), so its
// memory figure is the operator's alone. Targets: sync < 10 s, RSS < 200 MB, p99 < 50 ms, and no
// status writes in a steady state without changes.
import { type ChildProcess, fork } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { KubeConfig } from "@kubernetes/client-node";
import { Registry } from "prom-client";
import { startControlPlane } from "../src/control-plane/control-plane.ts";
import { Controller } from "../src/runtime/controller.ts";
import { Informer } from "../src/runtime/informer.ts";
import { KubeClient } from "../src/runtime/kube-client.ts";
import type { ResourceType } from "../src/runtime/object.ts";
import { Outcome } from "../src/runtime/outcome.ts";
import { patchStatus } from "../src/runtime/status.ts";
import { createLogger } from "../src/telemetry/logger.ts";
import { createMetrics } from "../src/telemetry/metrics.ts";
import { inParallel } from "./bench-support.ts";

const objects = Number(process.env.BENCH_OBJECTS ?? 10_000);
const updates = Number(process.env.BENCH_UPDATES ?? 1_000);
const workers = Number(process.env.BENCH_WORKERS ?? 10);
const namespace = "bench";
const type: ResourceType = { group: "bench.berth.dev", version: "v1", plural: "gadgets", kind: "Gadget" };
const collection = `/apis/${type.group}/${type.version}/namespaces/${namespace}/${type.plural}`;

/**
 * Messages between the parent (cluster side) and the child (operator side). There are two bursts:
 * in the first, reconciles only note when they start (the runtime's own dispatch latency); in the
 * second each also writes status, so workers wait on an API server that is busy with the burst.
 */
type ToParent =
  | { kind: "synced"; seconds: number; rssMb: number; heapMb: number }
  | { kind: "converged"; seconds: number; statusWrites: number; cpuSeconds: number }
  | { kind: "burst-done"; writes: boolean; latenciesMs: number[] }
  | { kind: "steady"; reconciles: number; statusWrites: number; seconds: number };
type ToChild = { kind: "burst"; writes: boolean } | { kind: "burst-sent" } | { kind: "steady" };

if (process.send === undefined) await parent();
else await child();

async function parent(): Promise<void> {
  const logger = createLogger({ level: "warn" });
  const dir = await mkdtemp(path.join(os.tmpdir(), "berth-bench-"));
  const controlPlane = await startControlPlane({ dir, logger });
  try {
    const config = new KubeConfig();
    config.loadFromFile(controlPlane.kubeconfigPath);
    const client = new KubeClient(config);
    await installCrd(client);
    await client.call("POST", "/api/v1/namespaces", { body: { metadata: { name: namespace } } });

    const started = Date.now();
    await inParallel(objects, 32, (i) =>
      client.call("POST", collection, {
        body: {
          apiVersion: `${type.group}/${type.version}`,
          kind: type.kind,
          metadata: { name: `g${i}` },
          spec: { size: 0 },
        },
      }),
    );
    report(`created ${objects} objects`, `${((Date.now() - started) / 1000).toFixed(1)} s`);

    const operator = fork(fileURLToPath(import.meta.url), [], {
      env: { ...process.env, BENCH_KUBECONFIG: controlPlane.kubeconfigPath },
      execArgv: ["--expose-gc"],
    });
    await new Promise<void>((resolve, reject) => {
      operator.on("error", reject);
      operator.on("exit", (code) =>
        code === 0 ? resolve() : reject(new Error(`operator exited with ${code}`)),
      );
      operator.on("message", (message: ToParent) =>
        onMessage(message, client, operator).catch((error: unknown) => {
          operator.kill();
          reject(error);
        }),
      );
    });
    await client.close();
  } finally {
    await controlPlane.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

async function onMessage(message: ToParent, client: KubeClient, operator: ChildProcess): Promise<void> {
  const send = (reply: ToChild) => operator.send(reply);
  switch (message.kind) {
    case "synced":
      report(
        `initial sync (paginated list of ${objects})`,
        `${message.seconds.toFixed(2)} s   (target < 10 s)`,
      );
      report(
        "operator memory after sync",
        `${message.rssMb.toFixed(0)} MB RSS, ${message.heapMb.toFixed(0)} MB heap used   (target < 200 MB)`,
      );
      return;
    case "converged":
      report(
        `first reconcile of all (${workers} workers)`,
        `${message.seconds.toFixed(1)} s, ${message.statusWrites} status writes, operator CPU ${message.cpuSeconds.toFixed(1)} s`,
      );
      await burst(client, 1, false, send);
      return;
    case "burst-done":
      if (message.writes) {
        report("  same, each reconcile writing status", percentiles(message.latenciesMs));
        send({ kind: "steady" });
      } else {
        report(
          "watch event -> reconcile start",
          `${percentiles(message.latenciesMs)}   (target p99 < 50 ms)`,
        );
        await burst(client, 2, true, send);
      }
      return;
    case "steady":
      report(
        "steady state, no changes",
        `${message.statusWrites} status writes in ${message.reconciles} reconciles (${message.seconds.toFixed(1)} s)   (must be 0)`,
      );
      return;
  }
}

/** Sends `updates` spec changes, 50 at a time, to distinct objects. */
async function burst(client: KubeClient, size: number, writes: boolean, send: (message: ToChild) => void) {
  send({ kind: "burst", writes });
  const started = Date.now();
  await inParallel(updates, 50, (i) =>
    client.call("PATCH", `${collection}/g${(i * 7) % objects}`, {
      body: { spec: { size } },
      contentType: "application/merge-patch+json",
    }),
  );
  report(`sent ${updates} spec updates`, `${((Date.now() - started) / 1000).toFixed(2)} s`);
  send({ kind: "burst-sent" });
}

async function child(): Promise<void> {
  const config = new KubeConfig();
  config.loadFromFile(process.env.BENCH_KUBECONFIG ?? "");
  const client = new KubeClient(config);
  const logger = createLogger({ level: "warn" });
  const metrics = createMetrics(new Registry());
  const post = (message: ToParent) => process.send?.(message);
  const next = <K extends ToChild["kind"]>(kind: K) =>
    new Promise<Extract<ToChild, { kind: K }>>((resolve) => {
      const listener = (message: ToChild) => {
        if (message.kind !== kind) return;
        process.off("message", listener);
        resolve(message as Extract<ToChild, { kind: K }>);
      };
      process.on("message", listener);
    });

  const informer = new Informer({ client, type, logger, metrics: metrics.watch, namespaces: [namespace] });
  let started = performance.now();
  informer.start();
  await informer.waitForSync();
  const syncSeconds = (performance.now() - started) / 1000;
  globalThis.gc?.();
  const memory = process.memoryUsage();
  post({
    kind: "synced",
    seconds: syncSeconds,
    rssMb: memory.rss / 2 ** 20,
    heapMb: memory.heapUsed / 2 ** 20,
  });

  // When each spec change reached the store, to measure how long it waits for its reconcile.
  const eventAt = new Map<string, number>();
  informer.on({
    update: (old, updated) => {
      if (old.metadata.generation === updated.metadata.generation) return;
      eventAt.set(`${namespace}/${updated.metadata.name}`, performance.now());
    },
  });
  let latencies: number[] = [];
  let writeStatus = true;
  let statusWrites = 0;
  let reconciles = 0;
  let active = 0;
  const controller = new Controller({
    name: "gadgets",
    informer,
    logger,
    metrics,
    concurrency: workers,
    reconcile: async ({ key }) => {
      const receivedAt = eventAt.get(key);
      if (receivedAt !== undefined) {
        latencies.push(performance.now() - receivedAt);
        eventAt.delete(key);
      }
      reconciles += 1;
      const object = informer.get(key);
      if (object === undefined || !writeStatus) return Outcome.done();
      const status = {
        observedGeneration: object.metadata.generation,
        size: (object.spec as { size: number }).size,
      };
      active += 1;
      try {
        if ((await patchStatus(client, type, object, status)).written) statusWrites += 1;
      } finally {
        active -= 1;
      }
      return Outcome.done();
    },
  });
  /** Resolves after a full second with an empty queue and no reconcile writing. */
  const idle = async () => {
    for (let quiet = 0; quiet < 10; ) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      quiet = controller.queue.length === 0 && active === 0 ? quiet + 1 : 0;
    }
  };

  started = performance.now();
  const cpu = process.cpuUsage();
  await controller.start();
  await idle();
  const { user, system } = process.cpuUsage(cpu);
  post({
    kind: "converged",
    seconds: (performance.now() - started) / 1000,
    statusWrites,
    cpuSeconds: (user + system) / 1e6,
  });

  for (const writes of [false, true]) {
    writeStatus = (await next("burst")).writes;
    latencies = [];
    await next("burst-sent");
    await idle();
    post({ kind: "burst-done", writes, latenciesMs: latencies });
  }

  await next("steady");
  statusWrites = 0;
  reconciles = 0;
  started = performance.now();
  // A periodic drift check of everything, with nothing changed.
  for (const object of informer.list()) controller.queue.add(`${namespace}/${object.metadata.name}`);
  await idle();
  post({ kind: "steady", reconciles, statusWrites, seconds: (performance.now() - started) / 1000 });

  await controller.stop();
  await informer.stop();
  await client.close();
  process.disconnect?.();
}

async function installCrd(client: KubeClient): Promise<void> {
  await client.call("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", {
    body: {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name: `${type.plural}.${type.group}` },
      spec: {
        group: type.group,
        scope: "Namespaced",
        names: { plural: type.plural, singular: "gadget", kind: type.kind, listKind: `${type.kind}List` },
        versions: [
          {
            name: type.version,
            served: true,
            storage: true,
            subresources: { status: {} },
            schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
          },
        ],
      },
    },
  });
  for (let attempt = 0; attempt < 100; attempt++) {
    try {
      await client.call("GET", collection, { query: { limit: 1 } });
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw new Error("the benchmark CRD was never served");
}

function percentiles(samples: number[]): string {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) =>
    (sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN).toFixed(1);
  return `p50 ${at(0.5)} ms, p99 ${at(0.99)} ms, max ${at(1)} ms (${sorted.length} samples)`;
}

function report(what: string, figure: string): void {
  process.stdout.write(`${what.padEnd(46)} ${figure}\n`);
}
