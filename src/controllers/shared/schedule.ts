import { isTrue } from "../../api/conditions.ts";
import { Outcome } from "../../runtime/index.ts";
import type { ControllerSettings } from "./deps.ts";

/** The earliest of several due times (epoch ms); undefined when none is set. */
export function earliest(...times: Array<number | undefined>): number | undefined {
  const set = times.filter((t): t is number => t !== undefined);
  return set.length === 0 ? undefined : Math.min(...set);
}

/**
 * The requeue for a look at `next` (epoch ms; none: done). A change still in progress (not yet
 * Ready at its generation, not Stalled, not waiting on the cluster) comes back as a change, even
 * when a background wake (a status echo, a drift check) ran this reconcile; drift checks, slow
 * retries and safety-net polls go in the background.
 */
export function lookAgain(next: number | undefined, now: number, inProgress: boolean): Outcome {
  if (next === undefined) return Outcome.done();
  const ms = Math.max(0, next - now);
  return inProgress ? Outcome.inProgressAfter(ms) : Outcome.requeueAfter(ms);
}

/**
 * A drift-check delay spread around `intervalMs` (75–125 %), so resources created together do not
 * check together and checks never come as a burst.
 */
export function jittered(intervalMs: number, random: () => number): number {
  return Math.round(intervalMs * (0.75 + 0.5 * random()));
}

/**
 * When to look at a resource again that cannot progress: a Stalled one slowly; one waiting for
 * something in the cluster (its Project, a Grid) is woken by that object's change, and looked at
 * again after a while in case the change was missed.
 */
export function retryAt(
  settings: ControllerSettings,
  now: Date,
  stalled: boolean,
  waiting: boolean,
): number | undefined {
  if (stalled) return now.getTime() + settings.stalledRetryMs;
  if (waiting) return now.getTime() + settings.polls.waitingMs;
  return undefined;
}

/**
 * After a restart nothing is in memory. A resource whose status says the service matched its
 * generation (Ready, no request pending) has its first read spread over the drift interval, in the
 * background, instead of every resource being read at once at user priority. True when the read
 * waits (`memory.driftDueAt` then says when).
 */
export function deferFirstRead<K extends "driftDueAt" | "orderDueAt">(
  memory: Record<K, number | undefined> & { readGeneration: number | undefined },
  resource: { generation: number; settled: boolean },
  timing: { now: number; intervalMs: number; random: () => number },
  dueField: K,
): boolean {
  if (memory[dueField] !== undefined || memory.readGeneration !== undefined || !resource.settled)
    return false;
  memory.readGeneration = resource.generation;
  const due: Record<K, number | undefined> = memory;
  due[dueField] = timing.now + Math.round(timing.random() * timing.intervalMs);
  return true;
}

/** Status says the service matched this generation: Ready, observed at it. */
export function isSettled(
  resource: {
    status?:
      | { observedGeneration?: number | undefined; conditions?: Parameters<typeof isTrue>[0] }
      | undefined;
  },
  generation: number,
): boolean {
  return resource.status?.observedGeneration === generation && isTrue(resource.status.conditions, "Ready");
}
