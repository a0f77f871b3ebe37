// Restart benchmark (issue 26): a change made as the operator restarts goes before the initial list.
//
//   node scripts/bench-restart.ts   (BENCH_APPS=2000 BENCH_DRIFT_SEC=600 BENCH_SPEED=20)
//
// One key (the simulator's demo key, 300 calls a simulated minute), a local control plane, the
// simulator (harsh defaults, clock sped up BENCH_SPEED times) and the real operator in a forked
// child (see bench-cluster.ts). BENCH_APPS image Apps are created through the operator and brought
// to Ready, with drift every BENCH_DRIFT_SEC simulated seconds (the default 10 min: 2,000 Apps ask
// for more reads than the key's background share, so the key is busy when the operator stops).
// Then the operator is stopped, a new one started, and one App's image changed at once. Printed:
// the changed App's time to Ready from the change, in simulated seconds (the operator's own
// start-up, real CPU time, counts BENCH_SPEED times there) and in real seconds, the new
// operator's start to synced, and the calls and 429s from the restart to Ready.
import { countSettled, imageApp, settled, startBenchCluster } from "./bench-cluster.ts";
import { inParallel, report, sleep, statsBetween, stopChild, until } from "./bench-support.ts";

const apps = Number(process.env.BENCH_APPS ?? 2000);
const driftSec = Number(process.env.BENCH_DRIFT_SEC ?? 600);
const speed = Number(process.env.BENCH_SPEED ?? 20);
const windowMs = 60_000 / speed;
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

async function main(): Promise<void> {
  const cluster = await startBenchCluster({ namespace: "restart", speed, driftSec });
  const { simulator, objects } = cluster;
  try {
    const first = await cluster.startOperator();
    await cluster.create("projects", "p", {});
    await until(async () => settled(objects.get("projects/p")), 60_000);
    const setupFrom = Date.now();
    await inParallel(apps, 32, (i) => cluster.create("apps", `run-${i}`, imageApp()));
    await until(async () => countSettled(objects, "apps/run-") === apps, 3_600_000, 1000);
    const setupMs = Date.now() - setupFrom;
    // The old operator keeps the key busy with drift for a few windows before it stops.
    await sleep(3 * windowMs);

    const before = await simulator.stats();
    const restartedAt = Date.now();
    await stopChild(first);
    const stoppedMs = Date.now() - restartedAt;
    const starting = cluster.startOperator();
    const changed = "run-0";
    await cluster.patchApp(changed, { image: "nginx:1.28" });
    const changedAt = Date.now();
    await starting;
    const syncedMs = Date.now() - restartedAt;
    await until(async () => settled(objects.get(`apps/${changed}`)), 600_000, 10);
    const readyMs = Date.now() - changedAt;
    const delta = statsBetween(before, await simulator.stats());

    report("running Apps, drift", `${apps}, every ${driftSec} s (simulated; clock ×${speed})`);
    report("setup", `${apps} Apps Ready in ${seconds(setupMs)} (real)`);
    report("restart to synced", `${seconds(syncedMs)} (real; the old one stopped in ${seconds(stoppedMs)})`);
    report(
      "changed App Ready",
      `${seconds(readyMs * speed)} simulated, ${seconds(readyMs)} real, from the change   (target ≤ 20 s)`,
    );
    report("calls meanwhile", `${delta.calls}, ${delta.limited} × 429   (restart to Ready; target 0 × 429)`);
  } finally {
    await cluster.stop();
  }
}

await main();
