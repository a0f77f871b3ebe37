import type { Logger } from "../telemetry/logger.ts";
import type { ControllerMetrics } from "../telemetry/metrics.ts";
import { isKubeError } from "./errors.ts";
import type { QueuePriority, WorkQueue } from "./workqueue.ts";

/** What a reconcile asks for next. */
export type Outcome =
  /** Converged: nothing to do until the object (or something it watches) changes. */
  | { kind: "done" }
  /**
   * Look again after `ms`: in the background (drift checks, polls of settled objects); with
   * `followUp`, at the priority of this reconcile (a Retry-After); with `inProgress`, as a change
   * (a person's change on its way, whatever woke this reconcile: its polls go before drift).
   */
  | { kind: "requeueAfter"; ms: number; followUp?: boolean; inProgress?: boolean }
  /** Could not go on without waiting for the budget: the worker is given back; again after `ms`, at the same priority. */
  | { kind: "deferred"; ms: number }
  /** Failed in a way a retry may fix: retried with per-key backoff. */
  | { kind: "error"; error: unknown }
  /** Failed in a way only a change to the object can fix: not retried until it changes. */
  | { kind: "terminal"; error: unknown };

export const Outcome = {
  done: (): Outcome => ({ kind: "done" }),
  requeueAfter: (ms: number): Outcome => ({ kind: "requeueAfter", ms }),
  followUpAfter: (ms: number): Outcome => ({ kind: "requeueAfter", ms, followUp: true }),
  inProgressAfter: (ms: number): Outcome => ({ kind: "requeueAfter", ms, inProgress: true }),
  deferred: (ms: number): Outcome => ({ kind: "deferred", ms }),
  error: (error: unknown): Outcome => ({ kind: "error", error }),
  terminal: (error: unknown): Outcome => ({ kind: "terminal", error }),
};

/**
 * What a reconcile throws when it cannot go on without waiting (the hosting budget has no room
 * soon): any error with this shape, so layers the runtime must not import can throw their own class.
 */
export interface Deferral {
  code: "deferred";
  /** When to come back. */
  deferMs: number;
}

export function isDeferral(error: unknown): error is Deferral {
  if (typeof error !== "object" || error === null) return false;
  const { code, deferMs } = error as Partial<Record<keyof Deferral, unknown>>;
  return code === "deferred" && typeof deferMs === "number" && Number.isFinite(deferMs) && deferMs >= 0;
}

function requeuePriority(
  outcome: { followUp?: boolean; inProgress?: boolean },
  ranAt: QueuePriority,
): QueuePriority {
  if (outcome.inProgress === true) return "change";
  return outcome.followUp === true ? ranAt : "background";
}

export interface OutcomeTarget {
  controller: string;
  key: string;
  /** The priority the key was processed at: retries and follow-ups keep it. */
  priority: QueuePriority;
  queue: WorkQueue;
  metrics: ControllerMetrics;
  logger: Logger;
}

/**
 * The one place an outcome becomes queue actions, metrics and logs. A 409 Conflict is routine under
 * optimistic concurrency: it is retried with backoff like an error but counted as a requeue.
 */
export function applyOutcome(
  outcome: Outcome,
  { controller, key, priority, queue, metrics, logger }: OutcomeTarget,
): void {
  switch (outcome.kind) {
    case "done":
      queue.forget(key);
      metrics.reconcileTotal.inc({ controller, result: "success" });
      return;
    case "requeueAfter":
      if (outcome.ms <= 0) {
        // "Again at once" is rate limited (controller-runtime's Requeue): a reconcile that keeps
        // asking without getting anywhere backs off instead of spinning; any other outcome resets it.
        queue.addRateLimited(key, priority);
        metrics.reconcileTotal.inc({ controller, result: "requeue" });
        return;
      }
      queue.forget(key);
      queue.addAfter(key, outcome.ms, requeuePriority(outcome, priority));
      metrics.reconcileTotal.inc({ controller, result: "requeue_after" });
      return;
    case "deferred":
      // Neither progress nor failure: the backoff stays as it was.
      queue.addAfter(key, outcome.ms, priority);
      metrics.reconcileTotal.inc({ controller, result: "requeue_after" });
      metrics.reconcileDeferred.inc({ controller });
      logger.debug({ key, ms: outcome.ms }, "no room in the budget soon; worker given back");
      return;
    case "error":
      queue.addRateLimited(key, priority);
      if (isKubeError(outcome.error, "conflict")) {
        metrics.reconcileTotal.inc({ controller, result: "requeue" });
        logger.debug({ key, err: outcome.error }, "conflict; requeued");
        return;
      }
      metrics.reconcileTotal.inc({ controller, result: "error" });
      metrics.reconcileErrors.inc({ controller });
      logger.error(
        { key, err: outcome.error, retries: queue.retries(key) },
        "reconcile failed; retrying with backoff",
      );
      return;
    case "terminal":
      queue.forget(key);
      metrics.reconcileTotal.inc({ controller, result: "error" });
      metrics.reconcileErrors.inc({ controller });
      metrics.terminalReconcileErrors.inc({ controller });
      logger.error(
        { key, err: outcome.error },
        "reconcile failed terminally; waiting for the object to change",
      );
      return;
  }
}
