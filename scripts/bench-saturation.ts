// Saturation benchmark (issue 26): changes go first while drift asks for more than the budget.
//
//   node scripts/bench-saturation.ts   (BENCH_RUNNING=300 BENCH_NEW=10 BENCH_DRIFT_SEC=20 BENCH_SPEED=20
//                                       BENCH_OBSERVE_SEC)
//
// One key (the simulator's demo key, 300 calls a simulated minute), a local control plane, the
// simulator (harsh defaults, clock sped up BENCH_SPEED times) and the operator (a forked child
// running startOperator, its rate-limit window, polls and drift interval scaled by the same speed).
// BENCH_RUNNING image Apps are brought to Ready; with drift every BENCH_DRIFT_SEC simulated seconds
// drift asks for about 3× the key's budget (one status read a check, the config from listings). Then BENCH_NEW new Apps and one image change are
// applied at once. Printed, in simulated seconds: time to Ready of the new Apps and of the changed
// App (target ≤ 20 s), the calls and 429s meanwhile (target 0), and the longest gap between two
// drift reads of one App (target ≤ 3× the drift interval), an App never read counting the whole
// span, beside the floor that drift's share of the budget allows.
import { z } from "zod";
import { countSettled, imageApp, settled, startBenchCluster } from "./bench-cluster.ts";
import { inParallel, report, type SimulatorProcess, sleep, statsBetween, until } from "./bench-support.ts";

const running = Number(process.env.BENCH_RUNNING ?? 300);
const fresh = Number(process.env.BENCH_NEW ?? 10);
const driftSec = Number(process.env.BENCH_DRIFT_SEC ?? 20);
const speed = Number(process.env.BENCH_SPEED ?? 20);
/** Simulated seconds drift is watched after the change (default: three intervals, or 1.5 × the floor if longer). */
const observeSec =
  process.env.BENCH_OBSERVE_SEC === undefined ? undefined : Number(process.env.BENCH_OBSERVE_SEC);
const windowMs = 60_000 / speed;
const simulated = (realMs: number) => `${((realMs * speed) / 1000).toFixed(1)} s`;
/** A drift check of a running image App reads its status; its config comes from a shared listing of the project. */
const readsPerCheck = 1;
/** The key's calls a minute less `--background-reserve` (10%). */
const backgroundShare = 300 - Math.floor(300 * 0.1);
/** How often drift can read every App at best, in simulated seconds, when it asks for more than its share. */
const fairIntervalSec = Math.max(driftSec, (running * readsPerCheck * 60) / backgroundShare);

async function main(): Promise<void> {
  const cluster = await startBenchCluster({ namespace: "saturation", speed, driftSec });
  const { simulator, objects } = cluster;
  try {
    await cluster.startOperator();
    await cluster.create("projects", "p", {});
    await until(async () => settled(objects.get("projects/p")), 60_000);
    await inParallel(running, 16, (i) => cluster.create("apps", `run-${i}`, imageApp()));
    await until(async () => countSettled(objects, "apps/run-") === running, 600_000);
    // Drift now asks for its reads; let it saturate the budget for a few windows.
    await sleep(3 * windowMs);

    const before = await simulator.stats();
    const measuredFrom = Math.max(...(await simulator.requests()).map((r) => Date.parse(r.at)));
    const started = Date.now();
    const changed = "run-0";
    await cluster.patchApp(changed, { image: "nginx:1.28" });
    await inParallel(fresh, fresh, (i) => cluster.create("apps", `new-${i}`, imageApp()));
    let changedMs: number | undefined;
    await until(
      async () => {
        if (changedMs === undefined && settled(objects.get(`apps/${changed}`)))
          changedMs = Date.now() - started;
        return changedMs !== undefined && countSettled(objects, "apps/new-") === fresh;
      },
      600_000,
      10,
    );
    const newMs = Date.now() - started;
    // Drift keeps going after the change, long enough to read every App at the background share
    // (and at least three intervals), to see it still reads every App.
    const observeMs = (observeSec ?? Math.max(3 * driftSec, 1.5 * fairIntervalSec)) * 1000;
    await sleep(Math.max(0, observeMs / speed - newMs));
    const delta = statsBetween(before, await simulator.stats());
    const runningIds = new Map(
      [...objects]
        .filter(([name]) => name.startsWith("apps/run-"))
        .map(([name, object]) => [(object.status as { appId?: string } | undefined)?.appId ?? "", name]),
    );
    const gaps = await longestDriftGaps(simulator, runningIds, measuredFrom);

    report("running Apps, drift", `${running}, every ${driftSec} s (simulated; clock ×${speed})`);
    report("new Apps Ready", `${fresh} in ${simulated(newMs)}   (target ≤ 20 s; was 251 s)`);
    report("changed App Ready", `${simulated(changedMs ?? Number.NaN)}   (target ≤ 20 s)`);
    report("calls meanwhile", `${delta.calls}, ${delta.limited} × 429   (target 0 × 429)`);
    for (const [what, gap] of [
      ["drift: config", gaps.config],
      ["drift: status", gaps.status],
    ] as const) {
      report(
        what,
        `${gap.appsRead} of ${running} Apps read in ${gap.spanSec.toFixed(0)} s; longest gap ${gap.longestSec.toFixed(1)} s (${gap.longestApp})   (target ≤ ${3 * driftSec} s)`,
      );
    }
    report(
      "… status's floor",
      `every ${fairIntervalSec.toFixed(0)} s: ${running} × ${readsPerCheck} reads at the background share (${backgroundShare} a minute)`,
    );
  } finally {
    await cluster.stop();
  }
}

interface Gap {
  appsRead: number;
  longestSec: number;
  /** The App that went unread longest. */
  longestApp: string;
  spanSec: number;
}

/**
 * Since `from` (simulated epoch ms), of the running Apps `names` (by app id): how many drift read, and the longest
 * time in simulated seconds one of them went unread (from `from`, between reads, until the last
 * request; an App never read counts the whole span). Config: a read of the app, or a listing of
 * its project (all running Apps are in one project); status: a read of its status.
 */
async function longestDriftGaps(
  simulator: SimulatorProcess,
  names: Map<string, string>,
  from: number,
): Promise<{ config: Gap; status: Gap }> {
  const control = simulator.baseUrl.replace(/\/v1$/, "/_sim");
  const body = await (await fetch(`${control}/requests`)).json();
  const items = z
    .object({
      items: z.array(z.object({ at: z.string(), operation: z.string().nullable(), path: z.string() })),
    })
    .parse(body)
    .items.filter((r) => Date.parse(r.at) >= from);
  const ids = [...names.keys()];
  const config = new Map<string, number[]>(ids.map((id) => [id, []]));
  const status = new Map<string, number[]>(ids.map((id) => [id, []]));
  for (const r of items) {
    const at = Date.parse(r.at);
    const id = r.path.split("/apps/")[1]?.split("/")[0] ?? "";
    if (r.operation === "getApp") config.get(id)?.push(at);
    if (r.operation === "getAppStatus") status.get(id)?.push(at);
    if (r.operation === "listApps") for (const times of config.values()) times.push(at);
  }
  const to = Math.max(...items.map((r) => Date.parse(r.at)));
  const named = (reads: Map<string, number[]>) => {
    const gap = longestGap(reads, from, to);
    return { ...gap, longestApp: names.get(gap.longestApp) ?? gap.longestApp };
  };
  return { config: named(config), status: named(status) };
}

function longestGap(reads: Map<string, number[]>, from: number, to: number): Gap {
  let longest = 0;
  let longestApp = "";
  let appsRead = 0;
  for (const [id, times] of reads) {
    if (times.length > 0) appsRead += 1;
    const points = [from, ...times.sort((x, y) => x - y), to];
    for (let i = 1; i < points.length; i++) {
      const gap = (points[i] ?? 0) - (points[i - 1] ?? 0);
      if (gap > longest) [longest, longestApp] = [gap, id];
    }
  }
  return { appsRead, longestSec: longest / 1000, spanSec: (to - from) / 1000, longestApp };
}

await main();
