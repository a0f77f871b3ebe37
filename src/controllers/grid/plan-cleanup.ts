import { reconciling } from "../../api/conditions.ts";
import { Reason } from "../service/reasons.ts";
import { released } from "../skeleton/cleanup.ts";
import type { GridAction } from "./actions.ts";
import { blocked, type GridPlan, type GridPlanInput, guarded, result } from "./plan-common.ts";

/**
 * The Grid is being deleted (the skeleton releases an Orphan): it waits for the ServerOrders using
 * it, then deletes the grid (or the one a create may have made) and is released.
 */
export function planGridCleanup(input: GridPlanInput): GridPlan {
  const { grid, observed } = input;
  const generation = grid.metadata.generation ?? 0;
  const gridId = grid.status?.gridId ?? observed.grid?.id;
  const release = (message: string) =>
    released(result(input, [], reconciling(Reason.Deleting, message, generation)));
  if (observed.clusterUsers.length > 0) {
    const names = observed.clusterUsers.slice(0, 5).join(", ");
    const waiting = `waiting for ${observed.clusterUsers.length} resource(s) using the grid to be deleted: ${names}`;
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
    const actions: GridAction[] = [{ type: "delete", gridId: single.id }];
    return (
      guarded(input, actions, `delete grid ${single.id}`) ??
      released(result(input, actions, reconciling(Reason.Deleting, `deleting grid ${single.id}`, generation)))
    );
  }
  const actions: GridAction[] = [{ type: "delete", gridId }];
  return (
    guarded(input, actions, `delete grid ${gridId}`) ??
    released(result(input, actions, reconciling(Reason.Deleting, `deleting grid ${gridId}`, generation)))
  );
}
