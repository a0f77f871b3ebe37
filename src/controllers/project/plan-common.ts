import { applyConditionChange, type ConditionChange } from "../../api/conditions.ts";
import type { Project, ProjectStatus } from "../../api/project.ts";
import type { Problem } from "../service/failure.ts";
import { ownerToRecord } from "../service/ownership.ts";
import { scopeProblem } from "../service/scopes.ts";
import { reconcileRequest } from "../skeleton/annotations.ts";
import { problemChange } from "../skeleton/condition-changes.ts";
import { sentActions } from "../skeleton/policies.ts";
import { type ProjectAction, projectChanges } from "./actions.ts";
import { withProjectCost } from "./cost.ts";
import { membersStatus } from "./members.ts";
import type { ProjectObserved } from "./memory.ts";

export interface ProjectPlanInput {
  project: Project;
  observed: ProjectObserved;
  now: Date;
}

export interface ProjectPlan {
  actions: ProjectAction[];
  status: ProjectStatus;
  stalled: boolean;
}

const scopes: Record<ProjectAction["type"], string[]> = {
  create: ["projects:write"],
  rename: ["projects:write"],
  delete: ["projects:admin"],
  addMember: ["projects:admin"],
  changeMember: ["projects:admin"],
  removeMember: ["projects:admin"],
};

export const membersScopes = ["projects:admin"];

/**
 * Stalled with the missing scopes, instead of a call certain to be refused; a call the management
 * policies hold back is never sent and needs none (`alsoNeeded` goes with the calls that are sent).
 */
export function guarded(
  input: ProjectPlanInput,
  actions: ProjectAction[],
  purpose: string,
  alsoNeeded: readonly string[] = [],
): ProjectPlan | undefined {
  const me = input.observed.me;
  const sent = sentActions(input.project.spec, projectChanges, actions);
  const needed = sent.length === 0 ? [] : [...sent.flatMap((a) => scopes[a.type]), ...alsoNeeded];
  const problem = me === undefined ? undefined : scopeProblem(me, needed, purpose);
  return problem === undefined ? undefined : blocked(input, problem);
}

export function blocked(input: ProjectPlanInput, problem: Problem): ProjectPlan {
  return result(input, [], problemChange(problem, input.project.metadata.generation ?? 0));
}

/** The plan: these actions and the condition change over the previous status (members as read). */
export function result(
  input: ProjectPlanInput,
  actions: ProjectAction[],
  change: ConditionChange,
): ProjectPlan {
  const { project, observed, now } = input;
  const { members: previousMembers, ...previous } = project.status ?? {};
  const members =
    project.spec.members === undefined
      ? undefined
      : observed.shares === undefined
        ? previousMembers
        : membersStatus(observed.shares);
  const reconcileAt = project.spec.suspend ? previous.lastHandledReconcileAt : reconcileRequest(project);
  const status: ProjectStatus = {
    ...previous,
    ...(observed.project === undefined ? {} : { projectId: observed.project.id }),
    ...ownerToRecord(previous.owner, observed.identity, observed.project !== undefined),
    ...(reconcileAt === undefined ? {} : { lastHandledReconcileAt: reconcileAt }),
    ...(members === undefined ? {} : { members }),
    lastRequestId: observed.requestId,
    observedGeneration: project.metadata.generation ?? 0,
    conditions: applyConditionChange(previous.conditions, change, now),
  };
  const isStalled = change.set.some((c) => c.type === "Stalled" && c.status === "True");
  return { actions, status: withProjectCost(status, observed.apps ?? []), stalled: isStalled };
}
