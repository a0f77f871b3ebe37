import { type Project, projectSchema } from "../../api/project.ts";
import type { Reconciler } from "../../runtime/index.ts";
import type { ControllerDeps } from "../service/deps.ts";
import type { Kind } from "../skeleton/kind.ts";
import { kindReconciler } from "../skeleton/kind-reconciler.ts";
import { jittered } from "../skeleton/schedule.ts";
import { type ProjectAction, type ProjectFact, projectChanges } from "./actions.ts";
import { projectType } from "./kind.ts";
import { learnProject } from "./learn.ts";
import { newProjectMemory, type ProjectKnowledge, type ProjectMemory, rememberProject } from "./memory.ts";
import { observeProject } from "./observe.ts";
import { projectOutputs } from "./outputs.ts";
import { doingForProject, performProject } from "./perform.ts";
import { projectPlans } from "./plan.ts";
import type { ProjectPlan } from "./plan-common.ts";
import { settleProjectIntent } from "./settle.ts";

/** observe → plan → perform → learn → plan → one status write, for one Project. */
export function projectReconciler(deps: ControllerDeps): Reconciler {
  return kindReconciler(deps, projectKind(deps));
}

/** What the Project kind brings to the shared skeleton. */
export function projectKind(
  deps: ControllerDeps,
): Kind<Project, ProjectMemory, ProjectKnowledge, ProjectAction, ProjectFact, ProjectPlan> {
  return {
    type: projectType,
    schema: projectSchema,
    observe: (project, memory, hosting) =>
      observeProject({ ...deps, hosting }, project, memory ?? newProjectMemory(project)),
    ...projectPlans,
    perform: performProject,
    learn: learnProject,
    settle: settleProjectIntent,
    doing: doingForProject,
    changes: projectChanges,
    schedule(knowledge, _plan, now) {
      // Known from a create or a lookup rather than a read: the drift checks start from now.
      const driftDueAt =
        knowledge.driftDueAt === undefined && knowledge.project !== undefined
          ? now.getTime() + jittered(deps.settings.driftIntervalMs, deps.random)
          : knowledge.driftDueAt;
      return { knowledge: { ...knowledge, driftDueAt }, dueAt: driftDueAt };
    },
    remember: rememberProject,
    waiting: (knowledge) => knowledge.problem !== undefined,
    outputs: projectOutputs,
  };
}
