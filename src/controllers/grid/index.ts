import type { ControllerDefinition } from "../skeleton/controller.ts";
import { secretsWatch } from "../skeleton/watches.ts";
import { gridUsersWatches } from "./dependents.ts";
import { gridType } from "./kind.ts";
import { gridReconciler } from "./reconciler.ts";

export { type GridIdsResult, type GridRefResult, resolveGridIds, resolveGridRef } from "./grid-ref.ts";

/** Grids: reconciled on their own changes, their credentials, and the ServerOrders and Apps that use them coming and going (deletion waits for them). */
export const gridController: ControllerDefinition = {
  name: "grid",
  type: gridType,
  setup(deps) {
    const grids = deps.informer(gridType);
    return {
      reconcile: gridReconciler(deps),
      watches: [secretsWatch(deps, gridType), ...gridUsersWatches(deps, grids)],
    };
  },
};
