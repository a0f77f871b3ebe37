import { gridSchema } from "../../api/grid.ts";
import type { Reconciler } from "../../runtime/index.ts";
import type { ControllerDeps } from "../service/deps.ts";
import { kindReconciler } from "../skeleton/kind-reconciler.ts";
import { gridChanges } from "./actions.ts";
import { gridType } from "./kind.ts";
import { learnGrid } from "./learn.ts";
import { newGridMemory, rememberGrid } from "./memory.ts";
import { observeGrid } from "./observe.ts";
import { gridOutputs } from "./outputs.ts";
import { doingForGrid, performGrid } from "./perform.ts";
import { gridPlans } from "./plan.ts";
import { settleGridIntent } from "./settle.ts";

/** observe → plan → perform → learn → plan → one status write, for one Grid. */
export function gridReconciler(deps: ControllerDeps): Reconciler {
  return kindReconciler(deps, {
    type: gridType,
    schema: gridSchema,
    observe: (grid, memory, hosting) =>
      observeGrid({ ...deps, hosting }, grid, memory ?? newGridMemory(grid)),
    ...gridPlans,
    perform: performGrid,
    learn: learnGrid,
    settle: settleGridIntent,
    doing: doingForGrid,
    changes: gridChanges,
    remember: rememberGrid,
    outputs: gridOutputs,
  });
}
