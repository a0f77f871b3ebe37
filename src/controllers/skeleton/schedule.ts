import { isTrue } from "../../api/conditions.ts";
import { Outcome } from "../../runtime/index.ts";
import type { ControllerSettings } from "../service/deps.ts";
import type { Failure } from "../service/failure.ts";
import { ReconcileError } from "./errors.ts";

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

/**
 * How a failed call or read is retried: the wait the service asked for (Retry-After), else
 * backoff; a failure a person must fix is not retried by itself (the Stalled schedule looks again
 * slowly).
 */
export function retryFailure(failure: Failure): Outcome | undefined {
  if (failure.stalled) return undefined;
  if (failure.retryAfterMs !== undefined) return Outcome.followUpAfter(failure.retryAfterMs);
  return Outcome.error(new ReconcileError(failure));
}

/** What decides when a reconcile's resource is looked at again. */
export interface Requeue {
  settings: ControllerSettings;
  /** When the calls answered: the kind's look and the slow retries count from it. */
  answeredAt: Date;
  /** Now, once the status is written (epoch ms). */
  now: number;
  /** The failed call, else the failed read. */
  failure: Failure | undefined;
  /** A call failed (not only a read). */
  callFailed: boolean;
  outputs: { error: unknown; problem: unknown };
  /** The plan says a person must act. */
  stalled: boolean;
  /** When the kind looks again by itself. */
  dueAt: number | undefined;
  /** The resource waits for something in the cluster. */
  waiting: boolean;
  /** Status says the service matched this generation. */
  settled: boolean;
}

/** The requeue: a failure's retry, else the earliest of the kind's own look and the slow retries. */
export function requeue(next: Requeue): Outcome {
  const { answeredAt, failure } = next;
  const retry = failure === undefined ? undefined : retryFailure(failure);
  if (retry !== undefined) return retry;
  if (next.outputs.error !== undefined) return Outcome.error(next.outputs.error);
  const stalled = next.stalled || failure?.stalled === true || next.outputs.problem !== undefined;
  // After a failed call nothing is due at once (a plan still holding that call would repeat it):
  // the Stalled schedule says when to look again.
  const due = next.callFailed && (next.dueAt ?? Infinity) <= answeredAt.getTime() ? undefined : next.dueAt;
  const at = earliest(due, retryAt(next.settings, answeredAt, stalled, next.waiting));
  return lookAgain(at, next.now, !stalled && !next.waiting && !next.settled);
}
