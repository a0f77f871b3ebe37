import { type ChildProcess, spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { z } from "zod";
import { defaultSettings } from "../src/controllers/service/deps.ts";
import type { KubeClient } from "../src/runtime/index.ts";

/** Runs `task(0..count-1)` with at most `width` in flight. */
export async function inParallel(
  count: number,
  width: number,
  task: (i: number) => Promise<unknown>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < count) await task(next++);
    }),
  );
}

const requestRecord = z.object({ at: z.string(), operation: z.string().nullable(), status: z.number() });
const statsSchema = z.object({
  requests: z.object({ byOperation: z.record(z.string(), z.record(z.string(), z.number())) }),
  earlyPolls: z.object({ total: z.number() }),
});

/** Requests the simulator counted, by operation and status, and its early polls. */
export type SimulatorStats = z.infer<typeof statsSchema>;

export interface SimulatorProcess {
  baseUrl: string;
  key: string;
  pid: number | undefined;
  /** The last 10,000 `/v1` requests. */
  requests(): Promise<z.infer<typeof requestRecord>[]>;
  stats(): Promise<SimulatorStats>;
  stop(): Promise<void>;
}

/** `berth simulator` in its own process (harsh defaults), with the control API and its clock sped up. */
export async function startSimulatorProcess(speed: number): Promise<SimulatorProcess> {
  const child = spawn(
    process.execPath,
    ["src/main.ts", "simulator", "--port", "0", "--control-api", "--clock-speed", String(speed)],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  const output = await readUntil(child, /demo API key/, 20_000);
  const baseUrl = /listening at (\S+)/.exec(output)?.[1] ?? "";
  const key = /demo API key \(full access\): (\S+)/.exec(output)?.[1] ?? "";
  const control = baseUrl.replace(/\/v1$/, "/_sim");
  return {
    baseUrl,
    key,
    pid: child.pid,
    async requests() {
      const body = await (await fetch(`${control}/requests`)).json();
      return z.object({ items: z.array(requestRecord) }).parse(body).items;
    },
    async stats() {
      return statsSchema.parse(await (await fetch(`${control}/stats`)).json());
    },
    stop: () => stopChild(child),
  };
}

/** What happened between two stats readings: calls by operation, 429s and early polls. */
export function statsBetween(before: SimulatorStats, after: SimulatorStats) {
  const byOperation = new Map<string, number>();
  let limited = 0;
  for (const [operation, statuses] of Object.entries(after.requests.byOperation)) {
    for (const [status, count] of Object.entries(statuses)) {
      const delta = count - (before.requests.byOperation[operation]?.[status] ?? 0);
      if (delta === 0) continue;
      byOperation.set(operation, (byOperation.get(operation) ?? 0) + delta);
      if (status === "429") limited += delta;
    }
  }
  const calls = [...byOperation].reduce((sum, [op, n]) => sum + (op === "getMe" ? 0 : n), 0);
  return { byOperation, calls, limited, earlyPolls: after.earlyPolls.total - before.earlyPolls.total };
}

/** Collects the child's stdout until `pattern` shows, then lets the rest flow away. */
export async function readUntil(child: ChildProcess, pattern: RegExp, timeoutMs: number): Promise<string> {
  const stdout = child.stdout;
  if (stdout === null) throw new Error("the child has no stdout pipe");
  let output = "";
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => done(new Error(`no ${pattern} after ${timeoutMs / 1000} s:\n${output}`)),
      timeoutMs,
    );
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (pattern.test(output)) done();
    };
    const onExit = (code: number | null) =>
      done(new Error(`exited with ${code} before ${pattern}:\n${output}`));
    const done = (error?: Error) => {
      clearTimeout(timer);
      stdout.off("data", onData);
      child.off("exit", onExit);
      if (error) reject(error);
      else resolve();
    };
    stdout.on("data", onData);
    child.once("exit", onExit);
  });
  stdout.resume();
  return output;
}

/** SIGTERM, then SIGKILL if the child has not exited within 10 s. */
export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
  await exited;
  clearTimeout(timer);
}

/** User + system CPU seconds a process has used so far (Linux /proc, 100 ticks per second). */
export async function cpuSeconds(pid: number | undefined): Promise<number> {
  if (pid === undefined) return Number.NaN;
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** A process's resident memory now (VmRSS: anonymous + file-backed) and at its peak (VmHWM), in MB. */
export async function residentMb(pid: number | undefined) {
  const status = pid === undefined ? "" : await readFile(`/proc/${pid}/status`, "utf8").catch(() => "");
  const mb = (name: string) =>
    Number(new RegExp(`^${name}:\\s+(\\d+)`, "m").exec(status)?.[1] ?? Number.NaN) / 1024;
  return { rss: mb("VmRSS"), peak: mb("VmHWM"), anon: mb("RssAnon"), file: mb("RssFile") };
}

/** Resolves once `condition` holds, looking every `everyMs` (fine-grained when a sped-up clock is timed). */
export async function until(
  condition: () => Promise<boolean>,
  timeoutMs = 60_000,
  everyMs = 200,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000} s`);
    await sleep(everyMs);
  }
}

export async function withTimeout(work: Promise<void>, ms: number, problem: () => string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(problem())), ms);
  });
  try {
    await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export function report(label: string, value: string, width = 28): void {
  process.stdout.write(`${label.padEnd(width)} ${value}\n`);
}

/** The operator's poll timings scaled to a sped-up simulator clock. */
export function scaledPolls(scale: (ms: number) => number) {
  const { startingMs, wiringMs, stoppingMs, buildingMs, waitingMs } = defaultSettings.polls;
  return {
    startingMs: scale(startingMs),
    wiringMs: scale(wiringMs),
    stoppingMs: scale(stoppingMs),
    buildingMs: scale(buildingMs),
    waitingMs: scale(waitingMs),
  };
}

/** A namespace with its `berth-credentials` Secret for the simulator's key. */
export async function credentialedNamespace(
  client: KubeClient,
  namespace: string,
  simulator: { key: string; baseUrl: string },
): Promise<void> {
  await client.call("POST", "/api/v1/namespaces", { body: { metadata: { name: namespace } } });
  await client.call("POST", `/api/v1/namespaces/${namespace}/secrets`, {
    body: {
      metadata: { name: "berth-credentials" },
      stringData: { apiKey: simulator.key, baseUrl: simulator.baseUrl },
    },
  });
}

/** A forked operator child: tells its parent it is ready, runs until SIGTERM, then stops. */
export async function serveUntilTerminated(running: { ready: Promise<void>; stop(): Promise<void> }) {
  await running.ready;
  process.send?.("ready");
  await new Promise<void>((resolve) => process.once("SIGTERM", () => resolve()));
  await running.stop();
  process.exit(0);
}
