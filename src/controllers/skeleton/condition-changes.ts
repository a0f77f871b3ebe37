import {
  applyConditionChange,
  type Condition,
  type ConditionChange,
  ConditionType,
  reconciling,
  stalled,
} from "../../api/conditions.ts";
import type { Problem } from "../service/failure.ts";
import { Reason } from "../service/reasons.ts";

/** Leave the conditions as they are. */
export function noChange(): ConditionChange {
  return { set: [], remove: [] };
}

/** A `Problem`, or one with a reason only this controller writes (e.g. the service's own error code). */
export type Blocker = Omit<Problem, "reason"> & { reason: string };

/** Stalled when a person must act, Reconciling otherwise. */
export function problemChange(problem: Blocker, generation: number): ConditionChange {
  return problem.stalled
    ? stalled(problem.reason, problem.message, generation)
    : reconciling(problem.reason, problem.message, generation);
}

/** `spec.suspend: true`: Ready=False reason Suspended, no Reconciling or Stalled. */
export function suspended(generation: number): ConditionChange {
  return {
    set: [
      {
        type: ConditionType.Ready,
        status: "False",
        reason: Reason.Suspended,
        message: "reconciling is suspended (spec.suspend: true); the service is not called",
        observedGeneration: generation,
      },
    ],
    remove: [ConditionType.Reconciling, ConditionType.Stalled],
  };
}

/** Appends the service's request ID to a message, when there is one. */
export function quoteRequest(requestId: string | undefined, message: string): string {
  return requestId === undefined ? message : `${message} (request ${requestId})`;
}

/** The status with the problem's conditions in place of what the plan said. */
export function withProblem<S extends { conditions?: Condition[] | undefined }>(
  status: S,
  problem: Blocker,
  generation: number,
  now: Date,
): S {
  return {
    ...status,
    conditions: applyConditionChange(status.conditions, problemChange(problem, generation), now),
  };
}
