import { describe, expect, it } from "vitest";
import { defaultLivenessLimits, LoopLagMonitor, livenessProblems, type WorkProgress } from "./health.ts";

const now = 1_000_000;
const limits = { maxLoopLagMs: 5_000, stuckAfterMs: 300_000 };
const work = (waiting: number, idleMs: number): WorkProgress => ({
  name: "apps",
  waiting,
  lastProgressAt: now - idleMs,
});

describe("livenessProblems", () => {
  it.each([
    ["an idle operator", 0, [], 0],
    ["a loop lag under the limit", 4_900, [work(3, 1_000)], 0],
    ["a loop blocked for more than 5 s", 5_100, [], 1],
    ["work waiting, the last reconcile 4 min ago", 0, [work(5, 240_000)], 0],
    ["work waiting, nothing taken or finished for 6 min", 0, [work(5, 360_000)], 1],
    ["nothing waiting, last progress an hour ago (idle, not stuck)", 0, [work(0, 3_600_000)], 0],
    ["both", 6_000, [work(1, 400_000), work(0, 400_000)], 2],
  ])("%s", (_, loopLagMs, progress, count) => {
    expect(livenessProblems({ loopLagMs, work: progress, now }, limits)).toHaveLength(count);
  });

  it("says which controller is stuck and for how long", () => {
    expect(livenessProblems({ loopLagMs: 0, work: [work(2, 360_000)], now }, limits)).toEqual([
      "controller apps: 2 keys waiting and no reconcile taken or finished for 360 s (limit 300 s)",
    ]);
  });

  it("defaults to 5 s of loop lag and 5 minutes without progress", () => {
    expect(defaultLivenessLimits).toEqual(limits);
  });
});

describe("LoopLagMonitor", () => {
  it("measures how late its timer ran, and the silence of a loop blocked right now", () => {
    let clock = 0;
    const monitor = new LoopLagMonitor({ intervalMs: 500, now: () => clock });
    clock = 500;
    monitor.tick();
    expect(monitor.lagMs()).toBe(0);
    // Blocked: no tick for 7 s.
    clock = 7_500;
    expect(monitor.lagMs()).toBe(6_500);
    // The late tick records the block until the next timely one.
    monitor.tick();
    expect(monitor.lagMs()).toBe(6_500);
    clock = 8_000;
    monitor.tick();
    expect(monitor.lagMs()).toBe(0);
  });
});
