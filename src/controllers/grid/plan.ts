import { serviceName } from "../../api/common.ts";
import { applyConditionChange, type ConditionChange, ready, reconciling } from "../../api/conditions.ts";
import type { Grid, GridStatus } from "../../api/grid.ts";
import { finalizer } from "../../api/meta.ts";
import { type CreateGridInput, idempotencyKey, type Grid as ServiceGrid } from "../../hosting/index.ts";
import { reconcileRequest } from "../shared/annotations.ts";
import {
  type Blocker,
  noChange,
  problemChange,
  quoteRequest,
  suspended,
} from "../shared/condition-changes.ts";
import { createIntent } from "../shared/intents.ts";
import { createAttempt } from "../shared/memory.ts";
import { ownerToRecord } from "../shared/ownership.ts";
import { Reason } from "../shared/reasons.ts";
import { scopeProblem } from "../shared/scopes.ts";
import type { GridAction } from "./actions.ts";
import type { GridObserved } from "./memory.ts";

export interface GridPlan {
  actions: GridAction[];
  status: GridStatus;
  stalled: boolean;
}

export interface GridPlanInput {
  grid: Grid;
  observed: GridObserved;
  now: Date;
}

/** Condition reasons only the Grid controller writes. */
export const GridReason = {
  /** Several unclaimed grids of this name appeared after an uncertain create: a person picks. */
  DuplicateGrids: "DuplicateGrids",
} as const;

const scopes: Record<GridAction["type"], string[]> = {
  addFinalizer: [],
  removeFinalizer: [],
  adopt: [],
  create: ["pools:write"],
  delete: ["pools:admin"],
};

/** The grid's name at the service: `spec.displayName`, else `metadata.name`. */
export function gridName(grid: Grid): string {
  return serviceName(grid.spec.displayName, grid.metadata.name);
}

/** The Grid's next step. Pure: no I/O, no clock. */
export function planGrid(input: GridPlanInput): GridPlan {
  const { grid, observed } = input;
  const generation = grid.metadata.generation ?? 0;
  const finalizers = grid.metadata.finalizers ?? [];
  const gridId = grid.status?.gridId ?? observed.grid?.id;
  if (grid.metadata.deletionTimestamp !== undefined) {
    if (!finalizers.includes(finalizer)) return result(input, [], noChange());
    const release = (message: string) =>
      result(input, [{ type: "removeFinalizer" }], reconciling(Reason.Deleting, message, generation));
    if (grid.spec.deletionPolicy === "Orphan") {
      return release(
        gridId === undefined
          ? "releasing the grid"
          : `releasing grid ${gridId}; it stays at the service (deletionPolicy: Orphan)`,
      );
    }
    if (observed.clusterOrders.length > 0) {
      const names = observed.clusterOrders.slice(0, 5).join(", ");
      const waiting = `waiting for ${observed.clusterOrders.length} ServerOrder(s) using the grid to be deleted: ${names}`;
      return result(input, [], reconciling(Reason.DependentsExist, waiting, generation));
    }
    if (observed.problem !== undefined) return blocked(input, observed.problem);
    if (observed.gone) return release("releasing the grid");
    if (gridId === undefined) {
      // With no ID a create may still have happened: released only once a lookup found nothing.
      const [single, ...more] = observed.found ?? [];
      if (observed.found !== undefined && single === undefined) return release("releasing the grid");
      if (single === undefined || more.length > 0) {
        return result(
          input,
          [],
          reconciling(Reason.Deleting, "looking for a grid a create may have made", generation),
        );
      }
      const actions: GridAction[] = [{ type: "delete", gridId: single.id }, { type: "removeFinalizer" }];
      return (
        guarded(input, actions, `delete grid ${single.id}`) ??
        result(input, actions, reconciling(Reason.Deleting, `deleting grid ${single.id}`, generation))
      );
    }
    const actions: GridAction[] = [{ type: "delete", gridId }, { type: "removeFinalizer" }];
    return (
      guarded(input, actions, `delete grid ${gridId}`) ??
      result(input, actions, reconciling(Reason.Deleting, `deleting grid ${gridId}`, generation))
    );
  }
  if (grid.spec.suspend) return result(input, [], suspended(generation));
  if (observed.problem !== undefined) return blocked(input, observed.problem);
  const withFinalizer = (actions: GridAction[]): GridAction[] =>
    finalizers.includes(finalizer) ? actions : [{ type: "addFinalizer" }, ...actions];
  const known = observed.grid;
  if (known !== undefined) return describeKnown(input, known, withFinalizer([]));
  const adopting = grid.spec.gridId;
  if (adopting !== undefined) {
    if (!observed.gone) return result(input, [], noChange()); // not read yet
    return blocked(input, {
      stalled: true,
      reason: Reason.ExternalNotFound,
      message: quoteRequest(
        observed.requestId,
        `grid ${adopting} (spec.gridId) does not exist at the service or its owner is not the key's user; ` +
          "check the ID, or delete this Grid and create one without spec.gridId",
      ),
    });
  }
  const found = observed.found ?? [];
  if (found.length > 1) {
    return blocked(input, {
      stalled: true,
      reason: GridReason.DuplicateGrids,
      message:
        `a create of grid ${gridName(grid)} had an unknown outcome and ${found.length} grids of that name now exist ` +
        `(${found.map((g) => g.id).join(", ")}); delete the extra ones at the service and berth adopts the one left`,
    });
  }
  const [single] = found;
  if (single !== undefined) {
    return result(
      input,
      withFinalizer([{ type: "adopt", grid: single }]),
      reconciling(
        Reason.Progressing,
        `adopting grid ${single.id}, created by an earlier attempt`,
        generation,
      ),
    );
  }
  // A grid is recorded but was not read this time: never create a second one on a guess.
  if (grid.status?.gridId !== undefined && !observed.gone) return result(input, [], noChange());
  const body: CreateGridInput = {
    name: gridName(grid),
    ...(grid.spec.description === undefined ? {} : { description: grid.spec.description }),
  };
  // After the grid vanished at the service, a new key: the old one would replay the vanished grid.
  const replaces = observed.gone ? grid.status?.gridId : undefined;
  const key = idempotencyKey(grid.metadata.uid ?? grid.metadata.name, "createGrid", {
    ...body,
    replaces,
    ...createAttempt(observed.refusedCreates ?? 0),
  });
  const intent = createIntent("createGrid", { name: body.name }, key, observed.refusedCreates);
  const actions = withFinalizer([{ type: "create", body, idempotencyKey: key, intent }]);
  return (
    guarded(input, actions, "create the grid") ??
    result(input, actions, reconciling(Reason.Progressing, `creating grid ${body.name}`, generation))
  );
}

/** The grid exists: Ready, unless the spec asks for a name or description the service can't change. */
function describeKnown(input: GridPlanInput, known: ServiceGrid, actions: GridAction[]): GridPlan {
  const { grid, observed } = input;
  const generation = grid.metadata.generation ?? 0;
  if (grid.spec.gridId === undefined) {
    const drift = unchangeable(grid, known);
    if (drift !== undefined) {
      return blocked(input, { stalled: true, reason: Reason.InvalidSpec, message: drift }, actions);
    }
  }
  const how = grid.spec.gridId === undefined ? "exists" : "is adopted";
  return result(
    input,
    actions,
    ready(
      Reason.Succeeded,
      quoteRequest(observed.requestId, `grid ${known.name} (${known.id}) ${how}`),
      generation,
    ),
  );
}

/** The service has no way to rename a grid or change its description: say so instead of pretending. */
function unchangeable(grid: Grid, known: ServiceGrid): string | undefined {
  const advice = "the service cannot change a grid after creating it; set it back, or create a new Grid";
  if (gridName(grid) !== known.name) {
    const field = grid.spec.displayName === undefined ? "metadata.name" : "spec.displayName";
    return `${field} asks for the name "${gridName(grid)}" but grid ${known.id} is named "${known.name}": ${advice}`;
  }
  if ((grid.spec.description ?? null) !== known.description) {
    return `spec.description differs from grid ${known.id}'s description at the service: ${advice}`;
  }
  return undefined;
}

function guarded(input: GridPlanInput, actions: GridAction[], purpose: string): GridPlan | undefined {
  const me = input.observed.me;
  const problem =
    me &&
    scopeProblem(
      me,
      actions.flatMap((a) => scopes[a.type]),
      purpose,
    );
  return problem === undefined ? undefined : blocked(input, problem);
}

function blocked(input: GridPlanInput, problem: Blocker, actions: GridAction[] = []): GridPlan {
  return result(input, actions, problemChange(problem, input.grid.metadata.generation ?? 0));
}

function result(input: GridPlanInput, actions: GridAction[], change: ConditionChange): GridPlan {
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
  return { actions, status, stalled: isStalled };
}
