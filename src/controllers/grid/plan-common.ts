import { applyConditionChange, type ConditionChange } from "../../api/conditions.ts";
import type { Grid, GridStatus } from "../../api/grid.ts";
import { ownerToRecord } from "../service/ownership.ts";
import { scopeProblem } from "../service/scopes.ts";
import { reconcileRequest } from "../skeleton/annotations.ts";
import { type Blocker, problemChange } from "../skeleton/condition-changes.ts";
import { sentActions } from "../skeleton/policies.ts";
import { type GridAction, gridChanges } from "./actions.ts";
import type { GridObserved } from "./memory.ts";

export interface GridPlan {
  actions: GridAction[];
  status: GridStatus;
  stalled: boolean;
  /** The next drift check. */
  dueAt: number | undefined;
}

export interface GridPlanInput {
  grid: Grid;
  observed: GridObserved;
  now: Date;
}

const scopes: Record<GridAction["type"], string[]> = {
  adopt: [],
  create: ["pools:write"],
  delete: ["pools:admin"],
};

/**
 * Stalled with the missing scopes, instead of a call certain to be refused; a call the management
 * policies hold back is never sent and needs none.
 */
export function guarded(input: GridPlanInput, actions: GridAction[], purpose: string): GridPlan | undefined {
  const me = input.observed.me;
  const sent = sentActions(input.grid.spec, gridChanges, actions);
  const problem =
    me &&
    scopeProblem(
      me,
      sent.flatMap((a) => scopes[a.type]),
      purpose,
    );
  return problem === undefined ? undefined : blocked(input, problem);
}

export function blocked(input: GridPlanInput, problem: Blocker, actions: GridAction[] = []): GridPlan {
  return result(input, actions, problemChange(problem, input.grid.metadata.generation ?? 0));
}

/** The plan: these actions and the condition change over the previous status. */
export function result(input: GridPlanInput, actions: GridAction[], change: ConditionChange): GridPlan {
  const { grid, observed, now } = input;
  const previous = grid.status ?? {};
  const reconcileAt = grid.spec.suspend ? previous.lastHandledReconcileAt : reconcileRequest(grid);
  // A vanished grid's ID stays until its replacement exists: the replacement's key is made from it.
  const gridId = observed.grid?.id ?? previous.gridId;
  const status: GridStatus = {
    ...previous,
    ...(gridId === undefined ? {} : { gridId }),
    ...ownerToRecord(previous.owner, observed.identity, observed.grid !== undefined),
    ...(reconcileAt === undefined ? {} : { lastHandledReconcileAt: reconcileAt }),
    lastRequestId: observed.requestId,
    observedGeneration: grid.metadata.generation ?? 0,
    conditions: applyConditionChange(previous.conditions, change, now),
  };
  const isStalled = change.set.some((c) => c.type === "Stalled" && c.status === "True");
  return { actions, status, stalled: isStalled, dueAt: observed.driftDueAt };
}
