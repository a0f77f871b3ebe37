// The figures of issue 15, from the real `berth operator` process as users run it (the compiled
// CLI, `node dist/main.js operator …`, built here into .berth/bench/dist), against a local control
// plane and `berth simulator` with its harsh defaults and default rate limits:
//
//   node scripts/bench-cli.ts          (BENCH_PHASES=footprint,scale,budget  BENCH_OBJECTS=10000
//                                       BENCH_APPS=150  BENCH_IDLE_SEC=30  BENCH_SETTLE_SEC=15
//                                       BENCH_BUILD=0 skips the build; BENCH_LOG_LEVEL=debug logs
//                                       the operator to .berth/bench/operator-PID.log
//                                       BENCH_NODE_FLAGS: node flags for the operator process, sets
//                                       separated by "|" run the scale phase once each; with
//                                       --heapsnapshot-signal=SIGUSR2 a snapshot is taken after its idle)
//
// footprint: RSS of an operator watching no objects, then 300 suspended Apps, each after it settled.
// scale:     BENCH_OBJECTS suspended Apps exist before the operator starts (BENCH_OBJECTS=50000
//            for the chart's 512 Mi); it writes a Suspended status on each. RSS after sync and at
//            its peak (VmHWM), CPU and time to sync, reconciles (from its /metrics), then writes and
//            reconciles over BENCH_IDLE_SEC idle seconds; where the memory was at the highest RSS
//            the operator read itself (bench-memory-sampler.mjs: V8's spaces, external,
//            ArrayBuffers, the rest), with its cache, queue depth and reconciles then (/metrics).
// budget:    BENCH_APPS image Apps at clock ×1 to Ready, then deleted, each phase on a fresh rate
//            window: time, hosting calls per App (GET /me excluded), 429s, early polls.
// RSS and CPU come from /proc/<pid> of the operator process.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { copyFileSync, createWriteStream } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import { KubeConfig } from "@kubernetes/client-node";
import { Registry } from "prom-client";
import { z } from "zod";
import { installCrds } from "../src/api/install.ts";
import { startControlPlane } from "../src/control-plane/control-plane.ts";
import { Informer, KubeClient, type KubeObject } from "../src/runtime/index.ts";
import { createLogger } from "../src/telemetry/logger.ts";
import { createMetrics } from "../src/telemetry/metrics.ts";
import {
  cpuSeconds,
  inParallel,
  report,
  residentMb,
  type SimulatorProcess,
  sleep,
  startSimulatorProcess,
  statsBetween,
  stopChild,
  until,
  withTimeout,
} from "./bench-support.ts";

const phases = new Set((process.env.BENCH_PHASES ?? "footprint,scale,budget").split(","));
const objects = Number(process.env.BENCH_OBJECTS ?? 10_000);
const budgetApps = Number(process.env.BENCH_APPS ?? 150);
const idleSec = Number(process.env.BENCH_IDLE_SEC ?? 30);
const footprintObjects = 300;
const settleSec = Number(process.env.BENCH_SETTLE_SEC ?? 15);
const flagSets = (process.env.BENCH_NODE_FLAGS ?? "").split("|").map((set) => set.split(" ").filter(Boolean));
const windowMs = 60_000;
const dist = path.resolve(".berth/bench/dist");
const appsPath = (namespace: string) => `/apis/berth.dev/v1alpha1/namespaces/${namespace}/apps`;
const appType = { group: "berth.dev", version: "v1alpha1", plural: "apps", kind: "App" };
const logger = createLogger({ level: "warn" });
/** The operator's start line names its metrics address. */
const metricsLine = /metrics (\S+)\)/;
/** The sampler's reading, in MB: heap spaces, external memory and ArrayBuffers. */
const memorySample = z.object({
  at: z.number(),
  rss: z.number(),
  heapTotal: z.number(),
  heapUsed: z.number(),
  external: z.number(),
  arrayBuffers: z.number(),
  spaces: z.record(z.string(), z.number()),
});
const memorySamples = z.object({ peak: memorySample, last: memorySample });
type MemorySamples = z.infer<typeof memorySamples>;

/** Operators started so far: each writes its memory samples to a file of its own. */
let operatorRuns = 0;

/** The figures the Go controller-runtime operator reached in the run, for comparison. */
const go = {
  rss10k: "94 MB",
  reconciles10k: "10,000",
  cpu10k: "8.8 s",
  sync10k: "31.4 s",
  idle300: "43 MB",
  ready150: "41 s (150 × 429)",
  calls150: "3.99",
  delete150: "120 s, 5.5 (225 × 429)",
};

if (process.env.BENCH_BUILD !== "0") {
  // The CLI as the package ships it: compiled, not type-stripped at load.
  execFileSync(
    process.execPath,
    ["node_modules/typescript/bin/tsc", "-p", "tsconfig.build.json", "--outDir", dist],
    {
      stdio: "inherit",
    },
  );
  // As in the package: package.json one folder above dist/ (the version and engines are read from it).
  copyFileSync("package.json", path.join(dist, "..", "package.json"));
}
report(
  "machine",
  `${os.cpus().length} × ${os.cpus()[0]?.model ?? "?"}, load ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}`,
);

const dir = await mkdtemp(path.join(os.tmpdir(), "berth-bench-cli-"));
const controlPlane = await startControlPlane({ dir, logger });
const config = new KubeConfig();
config.loadFromFile(controlPlane.kubeconfigPath);
const kube = new KubeClient(config);
try {
  await installCrds(config);
  if (phases.has("footprint") || phases.has("scale")) await footprintAndScale();
  if (phases.has("budget")) await budget();
  report(
    "load after",
    os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(" "),
  );
} finally {
  await kube.close();
  await controlPlane.stop();
  await rm(dir, { recursive: true, force: true });
}

async function footprintAndScale(): Promise<void> {
  const namespace = "scale";
  await createNamespace(namespace);
  const watched = await watchApps(namespace);
  if (phases.has("footprint")) {
    const operator = await startOperatorProcess([namespace]);
    await sleep(idleSec * 1000);
    report(
      "idle RSS, no objects",
      `${(await residentMb(operator.pid)).rss.toFixed(0)} MB   (target ≤ 75 MB)`,
    );
    report("  memory", await operator.memory());
    await createSuspendedApps(namespace, 0, footprintObjects);
    await until(async () => watched.suspended() === footprintObjects, 120_000);
    await sleep(idleSec * 1000);
    report(
      `idle RSS, ${footprintObjects} objects`,
      `${(await residentMb(operator.pid)).rss.toFixed(0)} MB   (Go operator ${go.idle300})`,
    );
    report("  memory", await operator.memory());
    await operator.stop();
  }
  if (!phases.has("scale")) return;
  const existing = phases.has("footprint") ? footprintObjects : 0;
  const created = Date.now();
  await createSuspendedApps(namespace, existing, objects);
  report(
    `created ${objects} Apps`,
    `${((Date.now() - created) / 1000).toFixed(1)} s (suspended, 32 at a time)`,
  );
  for (const flags of flagSets) {
    // A fresh operator meets every App at once, as after an upgrade or a failover.
    await clearStatuses(namespace, watched);
    await scale(namespace, watched, flags);
  }
  await watched.stop();
}

async function scale(namespace: string, watched: WatchedApps, flags: string[]): Promise<void> {
  if (flags.length > 0) report("operator node flags", flags.join(" "));
  const operator = await startOperatorProcess([namespace], flags);
  const following = operator.follow();
  await withTimeout(
    until(async () => watched.suspended() === objects, 600_000),
    610_000,
    () => `only ${watched.suspended()} of ${objects} Apps Suspended`,
  );
  const syncSec = (Date.now() - operator.startedAt) / 1000;
  const syncCpu = await cpuSeconds(operator.pid);
  const progress = await following.stop();
  await until(async () => (await operator.reconciles()) >= objects, 60_000).catch(() => undefined);
  // Settled: the last writes answered, their watch events in, the heap given back (V8 shrinks it
  // some ten seconds after the operator's collection once its queues are idle).
  await sleep(settleSec * 1000);
  const memory = await residentMb(operator.pid);
  const reconciles = await operator.reconciles();
  report(
    `${objects} suspended Apps: RSS`,
    `${memory.rss.toFixed(0)} MB ${settleSec} s after sync, peak ${memory.peak.toFixed(0)} MB   (target ≤ 92 MB, peak ≤ 130 MB; Go ${go.rss10k})`,
  );
  report("  reconciles", `${reconciles}   (target ${objects}, one per object; Go ${go.reconciles10k})`);
  report("  CPU to sync", `${syncCpu.toFixed(1)} s   (target ≤ Go's ${go.cpu10k})`);
  report("  sync time", `${syncSec.toFixed(1)} s from the operator's start   (Go ${go.sync10k})`);
  report("  settled memory", await operator.memory());
  const writesBefore = watched.updates();
  const cpuBefore = await cpuSeconds(operator.pid);
  await sleep(idleSec * 1000);
  report(
    `  idle ${idleSec} s`,
    `${watched.updates() - writesBefore} writes, ${(await operator.reconciles()) - reconciles} reconciles, ` +
      `${((await cpuSeconds(operator.pid)) - cpuBefore).toFixed(1)} CPU s   (target 0 writes, 0 reconciles)`,
  );
  report("  memory after idle", await operator.memory());
  if (flags.includes("--heapsnapshot-signal=SIGUSR2")) {
    operator.signal("SIGUSR2");
    await sleep(20_000);
  }
  const samples = await operator.stop();
  if (samples !== undefined) reportPeak(samples, progress, operator.startedAt);
}

/** Where the memory was at the highest RSS sampled (every 100 ms), and what the operator was doing. */
function reportPeak(samples: MemorySamples, progress: Progress[], startedAt: number): void {
  const { peak } = samples;
  const spaces = Object.entries(peak.spaces)
    .map(([space, size]) => `${space} ${size.toFixed(0)}`)
    .join(", ");
  report(
    "  at the peak",
    `RSS ${peak.rss.toFixed(0)} MB at ${((peak.at - startedAt) / 1000).toFixed(1)} s: V8 heap ${peak.heapTotal.toFixed(0)} MB ` +
      `(${spaces}), used ${peak.heapUsed.toFixed(0)}; external ${peak.external.toFixed(0)} MB ` +
      `(ArrayBuffers ${peak.arrayBuffers.toFixed(0)}); other ${(peak.rss - peak.heapTotal - peak.external).toFixed(0)} MB`,
  );
  const near = progress.reduce<Progress | undefined>(
    (best, p) => (best === undefined || Math.abs(p.at - peak.at) < Math.abs(best.at - peak.at) ? p : best),
    undefined,
  );
  const last = progress.at(-1);
  if (last !== undefined && peak.at > last.at + 5000)
    report("  … its work then", "none: the sync was over (the peak is a collection after it)");
  else if (near !== undefined)
    report(
      "  … its work then",
      `${near.cached} Apps cached (listed), ${near.queued} keys queued, ${near.reconciles} reconciles done ` +
        `(/metrics at ${((near.at - startedAt) / 1000).toFixed(1)} s)`,
    );
  const highest = progress.reduce((most, p) => Math.max(most, p.queued), 0);
  report(
    "  … during the sync",
    `queue depth at most ${highest}; RSS every 5 s: ${progress.map((p) => p.rssMb.toFixed(0)).join(" ")}`,
  );
}

async function budget(): Promise<void> {
  const namespace = "budget";
  const simulator = await startSimulatorProcess(1);
  try {
    await createNamespace(namespace);
    await kube.call("POST", `/api/v1/namespaces/${namespace}/secrets`, {
      body: {
        metadata: { name: "berth-credentials" },
        stringData: { apiKey: simulator.key, baseUrl: simulator.baseUrl },
      },
    });
    const watched = await watchApps(namespace);
    const operator = await startOperatorProcess([namespace]);
    await kube.call("POST", `/apis/berth.dev/v1alpha1/namespaces/${namespace}/projects`, {
      body: { apiVersion: "berth.dev/v1alpha1", kind: "Project", metadata: { name: "bench" }, spec: {} },
    });
    await until(async () => {
      const project = await kube.call(
        "GET",
        `/apis/berth.dev/v1alpha1/namespaces/${namespace}/projects/bench`,
      );
      return isReady(project as KubeObject);
    });
    await freshWindow(simulator);
    let before = await simulator.stats();
    const started = Date.now();
    await inParallel(budgetApps, 32, (i) =>
      kube.call("POST", appsPath(namespace), {
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
    await withTimeout(
      until(async () => watched.ready() === budgetApps, 600_000),
      610_000,
      () => `only ${watched.ready()} of ${budgetApps} Apps Ready`,
    );
    const readySec = (Date.now() - started) / 1000;
    let stats = statsBetween(before, await simulator.stats());
    report(
      `${budgetApps} image Apps, ×1: Ready`,
      `${readySec.toFixed(1)} s after the first apply   (target ≤ 30 s; Go ${go.ready150})`,
    );
    report(
      "  hosting calls per App",
      `${(stats.calls / budgetApps).toFixed(2)}   (target ≤ 2.05; Go ${go.calls150})`,
    );
    report("  by operation", [...stats.byOperation].map(([op, n]) => `${op} ${n}`).join(", "));
    report("  429 responses", `${stats.limited}   (target 0)`);
    report("  early polls", `${stats.earlyPolls}   (target 0)`);

    await freshWindow(simulator);
    before = await simulator.stats();
    const deleting = Date.now();
    await inParallel(budgetApps, 32, (i) => kube.call("DELETE", `${appsPath(namespace)}/app-${i}`));
    await withTimeout(
      until(async () => watched.count() === 0, 600_000),
      610_000,
      () => `${watched.count()} of ${budgetApps} Apps still there`,
    );
    const deleteSec = (Date.now() - deleting) / 1000;
    stats = statsBetween(before, await simulator.stats());
    report(
      "  deleted",
      `${deleteSec.toFixed(1)} s, ${(stats.calls / budgetApps).toFixed(2)} calls per App, ${stats.limited} × 429   ` +
        `(target ≤ 45 s, ≤ 3.05; Go ${go.delete150})`,
    );
    report("  by operation", [...stats.byOperation].map(([op, n]) => `${op} ${n}`).join(", "));
    await operator.stop();
    await watched.stop();
  } finally {
    await simulator.stop();
  }
}

/**
 * Waits until the last hosting call left the rate-limit window, so a phase starts on a full budget;
 * again if background work (a balance read) called meanwhile.
 */
async function freshWindow(simulator: SimulatorProcess): Promise<void> {
  for (;;) {
    const last = (await simulator.requests()).at(-1);
    const since = last === undefined ? windowMs : Date.now() - Date.parse(last.at);
    if (since > windowMs) return;
    await sleep(windowMs - since + 1000);
  }
}

interface OperatorProcess {
  pid: number | undefined;
  startedAt: number;
  reconciles(): Promise<number>;
  /** Where its memory is: RSS by kind (/proc), V8's heap and external memory (its /metrics). */
  memory(): Promise<string>;
  /** Its work while it syncs, read from /metrics every 5 s until `stop` is called. */
  follow(): { stop(): Promise<Progress[]> };
  signal(name: NodeJS.Signals): void;
  /** Stops it; resolves with its own memory samples (bench-memory-sampler.mjs). */
  stop(): Promise<MemorySamples | undefined>;
}

/** The operator's work at one moment, from its /metrics. */
interface Progress {
  at: number;
  rssMb: number;
  /** Keys waiting in the App controller's queue. */
  queued: number;
  /** Apps in its cache (listed so far). */
  cached: number;
  reconciles: number;
}

async function startOperatorProcess(namespaces: string[], flags: string[] = []): Promise<OperatorProcess> {
  const startedAt = Date.now();
  operatorRuns += 1;
  const memoryFile = path.join(dist, "..", `memory-${process.pid}-${operatorRuns}.json`);
  // A fixed port, so its metrics can be followed before it has synced (and said where they are).
  const metricsUrl = `http://127.0.0.1:${await freePort()}/metrics`;
  const child: ChildProcess = spawn(
    process.execPath,
    [
      `--import=${path.resolve("scripts/bench-memory-sampler.mjs")}`,
      ...flags,
      path.join(dist, "main.js"),
      "operator",
      "--kubeconfig",
      controlPlane.kubeconfigPath,
      ...namespaces.flatMap((n) => ["--namespace", n]),
      "--metrics-addr",
      new URL(metricsUrl).host,
      "--metrics-secure=false",
      "--health-addr",
      "127.0.0.1:0",
      "--log-level",
      process.env.BENCH_LOG_LEVEL ?? "warn",
    ],
    {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, NODE_OPTIONS: "", BENCH_MEMORY_FILE: memoryFile },
    },
  );
  // Its log (stderr) goes to a file beside the build.
  child.stderr?.pipe(createWriteStream(path.join(dist, "..", `operator-${child.pid}.log`)));
  // Its stdout (the start line; what flags such as --trace-gc print) too.
  const out = createWriteStream(path.join(dist, "..", `operator-${child.pid}.out`));
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    if (!metricsLine.test(output)) output += chunk.toString();
    out.write(chunk);
  });
  const metrics = async () => (await fetch(metricsUrl)).text();
  await until(async () => (await metrics().catch(() => "")) !== "" || child.exitCode !== null, 600_000);
  if (child.exitCode !== null) throw new Error(`the operator exited: ${output}`);
  return {
    pid: child.pid,
    startedAt,
    async reconciles() {
      return sumOf(await metrics(), "controller_runtime_reconcile_total");
    },
    async memory() {
      const text = await metrics();
      const mb = (name: string) => `${(sumOf(text, name) / 2 ** 20).toFixed(0)} MB`;
      const { rss, anon, file } = await residentMb(child.pid);
      const spaces = [...text.matchAll(/^nodejs_heap_space_size_total_bytes\{space="(\w+)"\} (\S+)$/gm)]
        .filter(([, , bytes]) => Number(bytes) >= 2 ** 20)
        .map(([, space, bytes]) => `${space} ${(Number(bytes) / 2 ** 20).toFixed(0)}`);
      return (
        `RSS ${rss.toFixed(0)} MB (anonymous ${anon.toFixed(0)}, file ${file.toFixed(0)}); V8 heap ` +
        `${mb("nodejs_heap_size_total_bytes")} (${spaces.join(", ")}), used ${mb("nodejs_heap_size_used_bytes")}; ` +
        `external ${mb("nodejs_external_memory_bytes")}`
      );
    },
    follow() {
      const seen: Progress[] = [];
      let following = true;
      const done = (async () => {
        while (following) {
          const text = await metrics().catch(() => "");
          if (text !== "")
            seen.push({
              at: Date.now(),
              rssMb: (await residentMb(child.pid)).rss,
              queued: sumOf(text, "workqueue_depth", 'name="app"'),
              cached: sumOf(text, "berth_resources", 'kind="App"'),
              reconciles: sumOf(text, "controller_runtime_reconcile_total", 'controller="app"'),
            });
          // Not more often: a scrape costs the operator 10–30 ms of CPU (its gauges count the cache).
          await sleep(5000);
        }
      })();
      return {
        async stop() {
          following = false;
          await done;
          return seen;
        },
      };
    },
    signal: (name) => child.kill(name),
    async stop() {
      await stopChild(child);
      const text = await readFile(memoryFile, "utf8").catch(() => undefined);
      return text === undefined ? undefined : memorySamples.parse(JSON.parse(text));
    },
  };
}

/** A TCP port free at the moment. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

/** The sum of a metric's samples in a Prometheus text exposition (those whose labels hold `label`). */
function sumOf(text: string, metric: string, label = ""): number {
  let total = 0;
  for (const [, labels, value] of text.matchAll(new RegExp(`^${metric}(\\{[^}]*\\})? (\\S+)$`, "gm")))
    if ((labels ?? "").includes(label)) total += Number(value);
  return total;
}

type WatchedApps = Awaited<ReturnType<typeof watchApps>>;

/** Follows the Apps of a namespace with a watch: how many are Suspended, Ready, and every update. */
async function watchApps(namespace: string) {
  const informer = new Informer({
    client: kube,
    type: appType,
    logger,
    metrics: createMetrics(new Registry()).watch,
    namespaces: [namespace],
  });
  let updates = 0;
  informer.on({ update: () => (updates += 1) });
  informer.start();
  await informer.waitForSync();
  const counting = (test: (object: KubeObject) => boolean) => () => informer.list().filter(test).length;
  return {
    suspended: counting((object) => conditionOf(object, "Ready")?.reason === "Suspended"),
    ready: counting(isReady),
    count: () => informer.list().length,
    updates: () => updates,
    stop: () => informer.stop(),
  };
}

async function createNamespace(name: string): Promise<void> {
  await kube.call("POST", "/api/v1/namespaces", { body: { metadata: { name } } });
}

async function createSuspendedApps(namespace: string, from: number, to: number): Promise<void> {
  await inParallel(to - from, 32, (i) =>
    kube.call("POST", appsPath(namespace), {
      body: {
        apiVersion: "berth.dev/v1alpha1",
        kind: "App",
        metadata: { name: `app-${from + i}` },
        spec: {
          projectRef: { name: "bench" },
          image: "nginx:1.27",
          ports: [{ port: 80, protocol: "http80_load_balancer" }],
          suspend: true,
        },
      },
    }),
  );
}

/** Removes every App's status, so the next operator writes each one again. */
async function clearStatuses(namespace: string, watched: WatchedApps): Promise<void> {
  if (watched.suspended() === 0) return;
  await inParallel(watched.count(), 32, (i) =>
    kube.call("PATCH", `${appsPath(namespace)}/app-${i}/status`, {
      body: { status: null },
      contentType: "application/merge-patch+json",
    }),
  );
  await until(async () => watched.suspended() === 0, 120_000);
}

function conditionOf(object: KubeObject, type: string): { status: string; reason?: string } | undefined {
  const conditions = (object.status as { conditions?: { type: string; status: string; reason?: string }[] })
    ?.conditions;
  return conditions?.find((c) => c.type === type);
}

function isReady(object: KubeObject): boolean {
  return conditionOf(object, "Ready")?.status === "True";
}
