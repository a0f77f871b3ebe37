import { gridSchema } from "../../api/grid.ts";
import type { Reconciler } from "../../runtime/index.ts";
import type { ControllerDeps } from "../shared/deps.ts";
import { kindReconciler } from "../shared/kind-reconciler.ts";
import { actOnGrid } from "./act.ts";
import { gridType } from "./kind.ts";
import { observeGrid } from "./observe.ts";
import { newGridMemory } from "./observed.ts";
import { gridOutputs } from "./outputs.ts";
import { planGrid } from "./plan.ts";

/** observe → plan → act → one status write, for one Grid. */
export function gridReconciler(deps: ControllerDeps): Reconciler {
  return kindReconciler(deps, {
    type: gridType,
    schema: gridSchema,
    newMemory: newGridMemory,
    observe: (grid, memory, hosting) => observeGrid({ ...deps, hosting }, grid, memory),
    async converge({ object, resource: grid, memory, observation, now }) {
      const { observed, connection } = observation;
      const plan = planGrid({ grid, observed, now });
      const acted = await actOnGrid({ deps, object, grid, memory, observed, connection }, plan.actions);
      // Status reflects what the calls just answered: plan again on the updated knowledge.
      return { acted, final: planGrid({ grid, observed, now }) };
    },
    dueAt: ({ memory }) => memory.driftDueAt,
    waiting: () => false,
    outputs: gridOutputs,
  });
}
