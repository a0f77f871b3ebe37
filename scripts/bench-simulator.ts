// Benchmarks the hosting API simulator: requests per second it sustains on one core for
// GET /projects/{projectId}/apps/{appId}/status, with the rate limits raised out of the way.
// The simulator runs alone in a child process (Node serves it on one thread, so one core); this
// process only generates load over keep-alive connections and counts answers. On a shared machine
// the load generator may not saturate the simulator: "requests per CPU-second" is the capacity of
// one fully busy core.
//
//   node scripts/bench-simulator.ts [--seconds 10] [--connections 32]
import { type ChildProcess, fork } from "node:child_process";
import { once } from "node:events";
import { parseArgs } from "node:util";
import { Pool } from "undici";
import { startSimulator } from "../src/simulator/index.ts";

interface Ready {
  origin: string;
  path: string;
  token: string;
}

if (process.argv.includes("--serve")) {
  await serve();
} else {
  await bench();
}

/** Child: one simulator, one project, one running app; reports CPU time when asked. */
async function serve(): Promise<void> {
  const unlimited = 1_000_000_000;
  const simulator = await startSimulator({
    clockSpeed: 1000,
    rateLimits: { perCredential: unlimited, perUser: unlimited },
  });
  const token = simulator.demoKey ?? "";
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  const project = (await (
    await fetch(`${simulator.baseUrl}/projects`, {
      method: "POST",
      headers: { ...headers, "idempotency-key": "bench-project" },
      body: JSON.stringify({ name: "bench" }),
    })
  ).json()) as { id: string };
  const app = (await (
    await fetch(`${simulator.baseUrl}/projects/${project.id}/apps`, {
      method: "POST",
      headers: { ...headers, "idempotency-key": "bench-app" },
      body: JSON.stringify({
        name: "web",
        config: { image: "nginx:1.27", ports: [{ port: 80, protocol: "http80_load_balancer" }] },
      }),
    })
  ).json()) as { id: string };
  const origin = simulator.baseUrl.replace(/\/v1$/, "");
  process.send?.({ origin, path: `/v1/projects/${project.id}/apps/${app.id}/status`, token } satisfies Ready);
  let cpuAtStart = process.cpuUsage();
  process.on("message", async (message) => {
    if (message === "start") cpuAtStart = process.cpuUsage();
    if (message === "cpu") process.send?.(process.cpuUsage(cpuAtStart));
    if (message === "stop") {
      await simulator.close();
      process.exit(0);
    }
  });
}

async function bench(): Promise<void> {
  const { values } = parseArgs({
    options: { seconds: { type: "string", default: "10" }, connections: { type: "string", default: "32" } },
  });
  const seconds = Number(values.seconds);
  const connections = Number(values.connections);
  if (!(seconds > 0) || !Number.isInteger(connections) || connections < 1) {
    console.error("usage: node scripts/bench-simulator.ts [--seconds S > 0] [--connections N >= 1]");
    process.exit(2);
  }
  const child: ChildProcess = fork(import.meta.filename, ["--serve"], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const [ready] = (await once(child, "message")) as [Ready];
  const pool = new Pool(ready.origin, { connections, pipelining: 1 });
  const headers = { authorization: `Bearer ${ready.token}` };

  const latencies: number[] = [];
  let failures = 0;
  let measuring = false;
  let stopAt = 0;
  const worker = async (): Promise<void> => {
    while (Date.now() < stopAt) {
      const started = performance.now();
      const response = await pool.request({ method: "GET", path: ready.path, headers });
      await response.body.text();
      if (response.statusCode !== 200) failures++;
      if (measuring) latencies.push(performance.now() - started);
    }
  };

  // Warm up for 2 s (JIT, connections), then measure.
  stopAt = Date.now() + 2000;
  await Promise.all(Array.from({ length: connections }, worker));
  child.send("start");
  measuring = true;
  const started = performance.now();
  stopAt = Date.now() + seconds * 1000;
  await Promise.all(Array.from({ length: connections }, worker));
  const elapsedSec = (performance.now() - started) / 1000;
  child.send("cpu");
  const [cpu] = (await once(child, "message")) as [NodeJS.CpuUsage];
  child.send("stop");
  await once(child, "exit");
  await pool.close();

  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))] ?? 0;
  const serverCores = (cpu.user + cpu.system) / 1e6 / elapsedSec;
  console.log(`simulator GET …/status: ${Math.round(latencies.length / elapsedSec)} requests/s`);
  console.log(
    `  ${latencies.length} requests in ${elapsedSec.toFixed(1)} s over ${connections} keep-alive connections`,
  );
  console.log(
    `  latency p50 ${pct(0.5).toFixed(2)} ms, p99 ${pct(0.99).toFixed(2)} ms; non-200 answers: ${failures}`,
  );
  console.log(
    `  simulator process CPU: ${serverCores.toFixed(2)} cores (one Node thread), ` +
      `${Math.round(latencies.length / elapsedSec / serverCores)} requests per CPU-second`,
  );
  if (failures > 0) process.exitCode = 1;
}
