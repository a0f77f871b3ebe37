import { setTimeout as sleep } from "node:timers/promises";
import type { Kind, Resource } from "./cluster.ts";

/** How the wait for convergence reads and judges the cluster. */
export interface ConvergenceWatch {
  read(): Promise<Map<Kind, Resource[]>>;
  /** Takes a reading that started at `readAt` (wall ms). */
  observe(lists: Map<Kind, Resource[]>, readAt: number): void;
  /** What is still waiting, after the readings so far. */
  unsettled(): string[];
}

export interface ConvergenceClock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

export const wallClock: ConvergenceClock = { now: () => Date.now(), sleep: (ms) => sleep(ms) };

export interface Convergence {
  /** When the reading that found every resource settled started (wall ms); undefined when time ran out. */
  convergedAt: number | undefined;
  /** What was still waiting when time ran out (empty when it converged). */
  unsettled: string[];
  /** Why each reading that failed did, at seconds since `startedAt`: checks skipped, for the verdict. */
  failedReadings: string[];
}

/** Reads the cluster every `intervalMs` until every resource settled or `timeoutMs` ran out. */
export async function converge(
  watch: ConvergenceWatch,
  timing: { timeoutMs: number; intervalMs: number; startedAt: number },
  clock: ConvergenceClock = wallClock,
): Promise<Convergence> {
  const deadline = clock.now() + timing.timeoutMs;
  const failedReadings: string[] = [];
  while (clock.now() < deadline) {
    const readAt = clock.now();
    try {
      watch.observe(await watch.read(), readAt);
      if (watch.unsettled().length === 0) return { convergedAt: readAt, unsettled: [], failedReadings };
    } catch (error) {
      const at = Math.round((clock.now() - timing.startedAt) / 1000);
      failedReadings.push(`t+${at}s (converging): ${String(error)}`);
    }
    await clock.sleep(timing.intervalMs);
  }
  return { convergedAt: undefined, unsettled: watch.unsettled(), failedReadings };
}
