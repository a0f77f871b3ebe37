import type { Problem } from "../service/failure.ts";

/** A reconcile that must be retried with backoff; `code` is the condition reason it wrote. */
export class ReconcileError extends Error {
  readonly code: string;

  constructor(problem: Problem) {
    super(problem.message);
    this.name = "ReconcileError";
    this.code = problem.reason;
  }
}
