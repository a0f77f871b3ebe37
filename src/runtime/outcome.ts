import type { Logger } from "../telemetry/logger.ts";
import type { ControllerMetrics } from "../telemetry/metrics.ts";
import { isKubeError } from "./errors.ts";
import type { WorkQueue } from "./workqueue.ts";

/** What a reconcile asks for next. */
export type Outcome =
  /** Converged: nothing to do until the object (or something it watches) changes. */
  | { kind: "done" }
  /** Converged for now; look again after `ms` (polling external work, drift checks). */
  | { kind: "requeueAfter"; ms: number }
  /** Failed in a way a retry may fix: retried with per-key backoff. */
  | { kind: "error"; error: unknown }
  /** Failed in a way only a change to the object can fix: not retried until it changes. */
  | { kind: "terminal"; error: unknown };

export const Outcome = {
  done: (): Outcome => ({ kind: "done" }),
  requeueAfter: (ms: number): Outcome => ({ kind: "requeueAfter", ms }),
  error: (error: unknown): Outcome => ({ kind: "error", error }),
  terminal: (error: unknown): Outcome => ({ kind: "terminal", error }),
};

export interface OutcomeTarget {
  controller: string;
  key: string;
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
  { controller, key, queue, metrics, logger }: OutcomeTarget,
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
        queue.addRateLimited(key);
        metrics.reconcileTotal.inc({ controller, result: "requeue" });
        return;
      }
      queue.forget(key);
      queue.addAfter(key, outcome.ms);
      metrics.reconcileTotal.inc({ controller, result: "requeue_after" });
      return;
    case "error":
      queue.addRateLimited(key);
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
