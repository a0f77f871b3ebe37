import { projectSchema } from "../../api/project.ts";
import type { Reconciler } from "../../runtime/index.ts";
import type { ControllerDeps } from "../shared/deps.ts";
import { kindReconciler } from "../shared/kind-reconciler.ts";
import { jittered } from "../shared/schedule.ts";
import { actOnProject, projectType } from "./act.ts";
import { observeProject } from "./observe.ts";
import { newProjectMemory } from "./observed.ts";
import { projectOutputs } from "./outputs.ts";
import { planProject } from "./plan.ts";

/** observe → plan → act → one status write, for one Project. */
export function projectReconciler(deps: ControllerDeps): Reconciler {
  return kindReconciler(deps, {
    type: projectType,
    schema: projectSchema,
    newMemory: newProjectMemory,
    observe: (project, memory, hosting) => observeProject({ ...deps, hosting }, project, memory),
    async converge({ object, resource: project, memory, observation, now }) {
      const { observed, connection } = observation;
      const plan = planProject({ project, observed, now });
      const acted = await actOnProject({ deps, object, project, memory, observed, connection }, plan.actions);
      // Known from a create or a lookup rather than a read: the drift checks start from now.
      if (memory.driftDueAt === undefined && memory.project !== undefined) {
        memory.driftDueAt = now.getTime() + jittered(deps.settings.driftIntervalMs, deps.random);
      }
      return { acted, final: planProject({ project, observed, now }) };
    },
    dueAt: ({ memory }) => memory.driftDueAt,
    waiting: ({ observed }) => observed.problem !== undefined,
    outputs: projectOutputs,
  });
}
