import { reconciling } from "../../api/conditions.ts";
import { finalizer } from "../../api/meta.ts";
import { noChange } from "../shared/condition-changes.ts";
import { Reason } from "../shared/reasons.ts";
import type { GridAction } from "./actions.ts";
import { blocked, type GridPlan, type GridPlanInput, guarded, result } from "./plan-common.ts";

/**
 * The Grid is being deleted: Orphan releases it; otherwise it waits for the ServerOrders using it,
 * then deletes the grid (or the one a create may have made) and releases.
 */
export function planDeletion(input: GridPlanInput): GridPlan {
  const { grid, observed } = input;
  const generation = grid.metadata.generation ?? 0;
  const finalizers = grid.metadata.finalizers ?? [];
  const gridId = grid.status?.gridId ?? observed.grid?.id;
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
