// Benchmarks the hosting client's rate limiter against the simulator's enforcement of the documented
// limits (300 requests per minute per credential, 600 per user): N status reads through one
// credential, all asked for at once, with the simulator's clock sped up. Prints the 429 count and the
// achieved rate against the allowed one; exits 1 if any 429 came back or the rate fell below 95%.
//
//   node scripts/bench-client.ts [--requests 1000] [--speed 20]
import { parseArgs } from "node:util";
import { createHostingClient, documentedLimits } from "../src/hosting/index.ts";
import { startSimulator } from "../src/simulator/index.ts";

const { values } = parseArgs({
  options: { requests: { type: "string", default: "1000" }, speed: { type: "string", default: "20" } },
});
const requests = Number(values.requests);
const speed = Number(values.speed);
if (!Number.isInteger(requests) || requests < 1 || !(speed > 0)) {
  console.error("usage: node scripts/bench-client.ts [--requests N >= 1] [--speed FACTOR > 0]");
  process.exit(2);
}

const simulator = await startSimulator({ controlApi: true, clockSpeed: speed });
const { sim } = simulator;
const user = sim.addUser({ email: "bench@example.test" });
const setupKey = sim.addKey({ userId: user.id });
const benchKey = sim.addKey({ userId: user.id });

const setup = createHostingClient({ baseUrl: simulator.baseUrl, apiKey: setupKey.token });
const project = await setup.createProject({ name: "bench" }, { idempotencyKey: "bench-project" });
const app = await setup.createApp(
  project.id,
  { name: "web", config: { image: "nginx:1.27", ports: [{ port: 80, protocol: "http80_load_balancer" }] } },
  { idempotencyKey: "bench-app" },
);
await setup.close();

const latencies: number[] = [];
const waits: number[] = [];
let rateLimited = 0;
const client = createHostingClient({
  baseUrl: simulator.baseUrl,
  apiKey: benchKey.token,
  // The client knows the documented limits; only the window shrinks with the simulator's clock.
  limits: { windowMs: documentedLimits.windowMs / speed },
  observer: {
    onRequest: (e) => latencies.push(e.durationSec * 1000),
    onLimiterWait: (e) => waits.push(e.waitSec * 1000),
    onRateLimited: () => rateLimited++,
  },
});

const started = performance.now();
const simStarted = sim.now().getTime();
await Promise.all(Array.from({ length: requests }, () => client.getAppStatus(project.id, app.id)));
const elapsedMs = performance.now() - started;
const simElapsedMs = sim.now().getTime() - simStarted;
await client.close();

const log = sim.requests({ operation: "getAppStatus" }).filter((r) => r.keyId === benchKey.id);
const simulator429s = log.filter((r) => r.status === 429).length;
const perWindow = new Map<number, number>();
for (const record of log) {
  const window = Math.floor(Date.parse(record.at) / documentedLimits.windowMs);
  perWindow.set(window, (perWindow.get(window) ?? 0) + 1);
}
await simulator.close();

const simMinutes = simElapsedMs / 60_000;
const achieved = requests / simMinutes;
const allowed = documentedLimits.perCredential;
const ratio = achieved / allowed;
const pct = (list: number[], p: number) =>
  [...list].sort((a, b) => a - b)[Math.floor((list.length - 1) * p)] ?? 0;

console.log(
  `bench-client: ${requests} getAppStatus reads through one credential, simulator clock x${speed},`,
);
console.log(
  `  simulator enforcing ${allowed}/min per credential and ${documentedLimits.perUser}/min per user`,
);
console.log(
  `  elapsed            ${(elapsedMs / 1000).toFixed(2)} s wall = ${simMinutes.toFixed(3)} simulated min`,
);
console.log(
  `  achieved rate      ${achieved.toFixed(1)}/min (${(ratio * 100).toFixed(1)}% of the ${allowed}/min allowed)`,
);
console.log(
  `  429 responses      ${rateLimited} seen by the client, ${simulator429s} in the simulator's log`,
);
console.log(`  per fixed window   ${[...perWindow.values()].join(" ")} (simulator's 60 s windows)`);
console.log(
  `  request latency    p50 ${pct(latencies, 0.5).toFixed(1)} ms, p99 ${pct(latencies, 0.99).toFixed(1)} ms (wall)`,
);
console.log(
  `  limiter wait       p50 ${pct(waits, 0.5).toFixed(0)} ms, max ${pct(waits, 1).toFixed(0)} ms (wall)`,
);

const ok = rateLimited === 0 && simulator429s === 0 && ratio >= 0.95;
console.log(
  ok ? "  PASS: zero 429s, rate >= 95% of allowed" : "  FAIL: 429s seen or rate below 95% of allowed",
);
process.exit(ok ? 0 : 1);
