// What unrelated Secrets cost the operator: its memory after sync with none, then with
// BENCH_SECRETS Secrets berth does not use (a few KB of data each), beside a handful it does use.
//
//   node scripts/bench-secrets.ts      (BENCH_SECRETS=10000 BENCH_SECRET_BYTES=3072 BENCH_SETTLE_SEC=5
//                                       BENCH_RUNS=3 BENCH_TEAMS=3; BENCH_DEBUG=1 prints V8's spaces)
//
// The parent starts a local control plane and creates, in BENCH_TEAMS namespaces, the Secrets
// berth uses: `berth-credentials`, a `credentialsRef` Secret and a `valueFrom` Secret, with a
// suspended App naming them (suspended: no hosting service is needed, the Secrets are still used).
// A forked child runs the operator (startOperator, all namespaces, with the CLI's Node tuning) and
// reports RSS and heap once its caches synced and it settled, after a full collection; BENCH_RUNS
// fresh operators give the median and range (a start's RSS varies by a few MB by itself). Then the
// unrelated Secrets are created, half in the teams' namespaces and half in another one, and fresh
// operators are measured again. Target: the medians differ by under 5 MB. Secret reads are the API
// server's own count (apiserver_request_total) while the operators ran.
import { fork } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import https from "node:https";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import v8 from "node:v8";
import { KubeConfig } from "@kubernetes/client-node";
import { Registry } from "prom-client";
import { installCrds } from "../src/api/install.ts";
import { tuningEnv, tuningFlags } from "../src/cli/node-tuning.ts";
import { startControlPlane } from "../src/control-plane/control-plane.ts";
import { startOperator } from "../src/operator/index.ts";
import { KubeClient } from "../src/runtime/index.ts";
import { createLogger } from "../src/telemetry/logger.ts";
import { inParallel, report, sleep, stopChild } from "./bench-support.ts";

const unrelated = Number(process.env.BENCH_SECRETS ?? 10_000);
const secretBytes = Number(process.env.BENCH_SECRET_BYTES ?? 3072);
const teams = Number(process.env.BENCH_TEAMS ?? 3);
const settleSec = Number(process.env.BENCH_SETTLE_SEC ?? 5);
const runs = Number(process.env.BENCH_RUNS ?? 3);
const otherNamespace = "unrelated";

interface Measured {
  rssMb: number;
  heapMb: number;
  syncSeconds: number;
}

/** Several fresh operators, one after the other: the median and range of their figures. */
interface Phase {
  rssMb: number[];
  heapMb: number[];
  syncSeconds: number[];
  secretGets: number;
  secretLists: number;
}

async function parent(): Promise<void> {
  const logger = createLogger({ level: "warn" });
  const dir = await mkdtemp(path.join(os.tmpdir(), "berth-bench-secrets-"));
  const controlPlane = await startControlPlane({ dir, logger });
  try {
    const config = new KubeConfig();
    config.loadFromFile(controlPlane.kubeconfigPath);
    const client = new KubeClient(config);
    await installCrds(config);
    const namespaces = Array.from({ length: teams }, (_, i) => `team-${i}`);
    for (const name of [...namespaces, otherNamespace]) {
      await client.call("POST", "/api/v1/namespaces", { body: { metadata: { name } } });
    }
    for (const namespace of namespaces) await createUsed(client, namespace);
    report(
      "used Secrets",
      `${teams * 3} (${teams} namespaces × berth-credentials, credentialsRef, valueFrom)`,
    );

    const none = await phase(controlPlane.kubeconfigPath, config);
    report("no unrelated Secrets", describe(none));

    const started = Date.now();
    const data = { blob: randomBytes(Math.ceil((secretBytes * 3) / 4)).toString("base64") };
    await inParallel(unrelated, 32, (i) => {
      const namespace = i % 2 === 0 ? otherNamespace : (namespaces[i % teams] ?? otherNamespace);
      return client.call("POST", `/api/v1/namespaces/${namespace}/secrets`, {
        body: { metadata: { name: `unrelated-${i}` }, data },
      });
    });
    report(
      `created ${unrelated} unrelated`,
      `${((Date.now() - started) / 1000).toFixed(1)} s, ${(secretBytes / 1024).toFixed(1)} KB of data each`,
    );

    const many = await phase(controlPlane.kubeconfigPath, config);
    report(`${unrelated} unrelated Secrets`, describe(many));
    report(
      "difference of the medians",
      `${(median(many.rssMb) - median(none.rssMb)).toFixed(1)} MB RSS, ` +
        `${(median(many.heapMb) - median(none.heapMb)).toFixed(1)} MB heap   (target < 5 MB RSS)`,
    );
    await client.close();
  } finally {
    await controlPlane.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? 0)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

function describe(phase: Phase): string {
  const spread = (values: number[]) =>
    `${median(values).toFixed(1)} (${Math.min(...values).toFixed(1)}–${Math.max(...values).toFixed(1)})`;
  return (
    `RSS ${spread(phase.rssMb)} MB, heap used ${spread(phase.heapMb)} MB, synced in ` +
    `${median(phase.syncSeconds).toFixed(1)} s; per start: Secret GETs ${phase.secretGets / runs}, ` +
    `lists ${phase.secretLists / runs}`
  );
}

async function phase(kubeconfigPath: string, config: KubeConfig): Promise<Phase> {
  const before = await secretRequests(config);
  const measured: Measured[] = [];
  for (let run = 0; run < runs; run++) measured.push(await measure(kubeconfigPath));
  const after = await secretRequests(config);
  return {
    rssMb: measured.map((m) => m.rssMb),
    heapMb: measured.map((m) => m.heapMb),
    syncSeconds: measured.map((m) => m.syncSeconds),
    secretGets: after.gets - before.gets,
    secretLists: after.lists - before.lists,
  };
}

/** In each team's namespace: the three Secrets berth uses, and a suspended App that uses them. */
async function createUsed(client: KubeClient, namespace: string): Promise<void> {
  const secrets = `/api/v1/namespaces/${namespace}/secrets`;
  for (const name of ["berth-credentials", "team-credentials"]) {
    await client.call("POST", secrets, {
      body: {
        metadata: { name },
        stringData: { apiKey: `key-${namespace}`, baseUrl: "http://127.0.0.1:1/v1" },
      },
    });
  }
  await client.call("POST", secrets, { body: { metadata: { name: "web-env" }, stringData: { token: "t" } } });
  const apps = `/apis/berth.dev/v1alpha1/namespaces/${namespace}/apps`;
  const app = (name: string, spec: object) => ({
    apiVersion: "berth.dev/v1alpha1",
    kind: "App",
    metadata: { name },
    spec: { projectId: "a".repeat(24), image: "nginx:1.27", suspend: true, ...spec },
  });
  await client.call("POST", apps, {
    body: app("web", {
      env: [{ name: "TOKEN", valueFrom: { secretKeyRef: { name: "web-env", key: "token" } } }],
    }),
  });
  await client.call("POST", apps, { body: app("api", { credentialsRef: { name: "team-credentials" } }) });
}

/** Runs a fresh operator until it synced and settled, and takes its figures. */
async function measure(kubeconfigPath: string): Promise<Measured> {
  const child = fork(fileURLToPath(import.meta.url), [], {
    env: { ...process.env, ...tuningEnv, BENCH_ROLE: "operator", BENCH_KUBECONFIG: kubeconfigPath },
    execArgv: [...tuningFlags, "--expose-gc"],
  });
  try {
    return await new Promise<Measured>((resolve, reject) => {
      child.once("message", (message: Measured) => resolve(message));
      child.once("exit", (code) => reject(new Error(`operator exited with ${code}`)));
    });
  } finally {
    await stopChild(child);
  }
}

/** The API server's count of Secret reads: single GETs, and lists (watches aside). */
async function secretRequests(config: KubeConfig): Promise<{ gets: number; lists: number }> {
  const text = await apiServerMetrics(config);
  const count = (verb: string) =>
    text
      .split("\n")
      .filter((line) => line.startsWith("apiserver_request_total{") && line.includes('resource="secrets"'))
      .filter((line) => line.includes(`verb="${verb}"`))
      .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(" ") + 1)), 0);
  return { gets: count("GET"), lists: count("LIST") };
}

async function apiServerMetrics(config: KubeConfig): Promise<string> {
  const options: https.RequestOptions = {};
  await config.applyToHTTPSOptions(options);
  const server = config.getCurrentCluster()?.server ?? "";
  return new Promise((resolve, reject) => {
    https
      .get(`${server}/metrics`, options, (response) => {
        let text = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => {
          text += chunk;
        });
        response.on("end", () => resolve(text));
      })
      .on("error", reject);
  });
}

async function operator(): Promise<void> {
  const config = new KubeConfig();
  config.loadFromFile(process.env.BENCH_KUBECONFIG ?? "");
  const started = performance.now();
  const running = await startOperator(
    { metricsAddr: "", healthAddr: "", logLevel: "warn" },
    { logger: createLogger({ level: "warn" }), registry: new Registry(), kubeConfig: config },
  );
  await running.ready;
  const syncSeconds = (performance.now() - started) / 1000;
  await sleep(settleSec * 1000);
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  gc?.();
  await sleep(500);
  const memory = process.memoryUsage();
  if (process.env.BENCH_DEBUG === "1") {
    const spaces = v8
      .getHeapSpaceStatistics()
      .map((space) => `${space.space_name} ${(space.space_size / 2 ** 20).toFixed(1)}`)
      .join(", ");
    const status = await readFile("/proc/self/status", "utf8");
    const rss = status
      .split("\n")
      .filter((line) => /^Rss/.test(line))
      .join("; ");
    process.stderr.write(
      `heap spaces (MB): ${spaces}\n${rss}\nexternal ${(memory.external / 2 ** 20).toFixed(1)} MB, arrayBuffers ${(memory.arrayBuffers / 2 ** 20).toFixed(1)} MB\n`,
    );
  }
  process.send?.({ rssMb: memory.rss / 2 ** 20, heapMb: memory.heapUsed / 2 ** 20, syncSeconds });
  await new Promise<void>((resolve) => process.once("SIGTERM", () => resolve()));
  await running.stop();
  process.exit(0);
}

if (process.env.BENCH_ROLE === "operator") await operator();
else await parent();
