import { serviceName } from "../../api/common.ts";
import { applyConditionChange, type ConditionChange, ready, reconciling } from "../../api/conditions.ts";
import { finalizer } from "../../api/meta.ts";
import type { Project, ProjectStatus } from "../../api/project.ts";
import { idempotencyKey } from "../../hosting/index.ts";
import { reconcileRequest } from "../shared/annotations.ts";
import { noChange, problemChange, quoteRequest, suspended } from "../shared/condition-changes.ts";
import type { Problem } from "../shared/failure.ts";
import { createIntent } from "../shared/intents.ts";
import { createAttempt } from "../shared/memory.ts";
import { ownerToRecord } from "../shared/ownership.ts";
import { Reason } from "../shared/reasons.ts";
import { pinnedProjects, scopeProblem } from "../shared/scopes.ts";
import type { MemberAction, ProjectAction } from "./actions.ts";
import { describeMemberActions, diffMembers, membersStatus } from "./members.ts";
import type { ProjectObserved } from "./memory.ts";

export interface ProjectPlan {
  actions: ProjectAction[];
  status: ProjectStatus;
  stalled: boolean;
}

const scopes: Record<ProjectAction["type"], string[]> = {
  addFinalizer: [],
  removeFinalizer: [],
  create: ["projects:write"],
  rename: ["projects:write"],
  delete: ["projects:admin"],
  addMember: ["projects:admin"],
  changeMember: ["projects:admin"],
  removeMember: ["projects:admin"],
};

const membersScopes = ["projects:admin"];

/** The service's name for the project: `spec.displayName`, else `metadata.name`. */
export function projectName(project: Project): string {
  return serviceName(project.spec.displayName, project.metadata.name);
}

/** The Project's next step. Pure: no I/O, no clock. */
export function planProject(input: { project: Project; observed: ProjectObserved; now: Date }): ProjectPlan {
  const { project, observed } = input;
  const generation = project.metadata.generation ?? 0;
  const finalizers = project.metadata.finalizers ?? [];
  if (project.metadata.deletionTimestamp !== undefined) {
    if (!finalizers.includes(finalizer)) return result(input, [], noChange());
    const projectId = project.status?.projectId ?? observed.project?.id;
    const release = () =>
      result(
        input,
        [{ type: "removeFinalizer" }],
        reconciling(Reason.Deleting, "releasing the project", generation),
      );
    if (project.spec.deletionPolicy === "Orphan") return release();
    if (observed.problem !== undefined && observed.clusterApps.length === 0)
      return blocked(input, observed.problem);
    if (observed.gone) return release();
    // With no ID a create may still have happened: released only once a lookup found nothing.
    if (projectId === undefined) {
      if (observed.lookedUpNothing === true) return release();
      return result(
        input,
        [],
        reconciling(Reason.Deleting, "looking for a project a create may have made", generation),
      );
    }
    if (observed.clusterApps.length > 0) {
      const names = observed.clusterApps.slice(0, 5).join(", ");
      return result(
        input,
        [],
        reconciling(
          Reason.DependentsExist,
          `waiting for ${observed.clusterApps.length} App(s) using the project to be deleted: ${names}`,
          generation,
        ),
      );
    }
    if (observed.problem !== undefined) return blocked(input, observed.problem);
    if (observed.serviceApps === undefined)
      return result(input, [], reconciling(Reason.Deleting, "checking the project's apps", generation));
    if (observed.serviceApps.length > 0) {
      return blocked(input, {
        stalled: true,
        reason: Reason.DependentsExist,
        message: `project ${projectId} still holds apps berth does not manage (${observed.serviceApps.join(", ")}); delete them at the service or set deletionPolicy: Orphan`,
      });
    }
    return (
      guarded(input, [{ type: "delete" }, { type: "removeFinalizer" }], "delete the project") ??
      result(
        input,
        [{ type: "delete" }, { type: "removeFinalizer" }],
        reconciling(Reason.Deleting, `deleting project ${projectId}`, generation),
      )
    );
  }
  if (project.spec.suspend) return result(input, [], suspended(generation));
  if (observed.problem !== undefined) return blocked(input, observed.problem);
  const name = projectName(project);
  const withFinalizer = (actions: ProjectAction[]): ProjectAction[] =>
    finalizers.includes(finalizer) ? actions : [{ type: "addFinalizer" }, ...actions];
  const known = observed.project;
  if (known === undefined) {
    if (project.status?.projectId !== undefined && !observed.gone) return result(input, [], noChange());
    // Adoption never turns into creation: the adopted project is someone's, and it is gone.
    const adopting = project.spec.projectId;
    if (adopting !== undefined) {
      if (!observed.gone) return result(input, [], noChange()); // not read yet
      return blocked(input, {
        stalled: true,
        reason: Reason.ExternalNotFound,
        message: quoteRequest(
          observed.requestId,
          `project ${adopting} (spec.projectId) does not exist at the service or the key can't see it; ` +
            "check the ID, or delete this Project and create one without spec.projectId",
        ),
      });
    }
    const me = observed.me;
    if (me !== undefined && pinnedProjects(me).length > 0) {
      return blocked(input, {
        stalled: true,
        reason: Reason.KeyProjectRestricted,
        message: `the API key is pinned to projects ${pinnedProjects(me).join(", ")} and a pinned key cannot create a project; set spec.projectId to adopt one, or use an unpinned key`,
      });
    }
    const replaces = observed.gone ? project.status?.projectId : undefined;
    const key = idempotencyKey(project.metadata.uid ?? project.metadata.name, "createProject", {
      name,
      ...(replaces === undefined ? {} : { replaces }),
      ...createAttempt(observed.refusedCreates ?? 0),
    });
    const intent = createIntent("createProject", { name }, key, observed.refusedCreates);
    const actions = withFinalizer([{ type: "create", name, idempotencyKey: key, intent }]);
    return (
      guarded(
        input,
        actions,
        "create the project",
        project.spec.members === undefined ? [] : membersScopes,
      ) ?? result(input, actions, reconciling(Reason.Progressing, `creating project ${name}`, generation))
    );
  }
  const members = planMembers(input);
  if (members.problem !== undefined) return blocked(input, members.problem);
  const renames: ProjectAction[] = known.name === name ? [] : [{ type: "rename", name }];
  const actions = withFinalizer([...renames, ...members.actions]);
  const exists = `project ${known.name} (${known.id}) exists`;
  const change =
    members.waiting !== undefined
      ? reconciling(Reason.Progressing, `${exists}; ${members.waiting}`, generation)
      : members.actions.length > 0
        ? reconciling(
            Reason.Progressing,
            `${exists}; sharing: ${describeMemberActions(members.actions)}`,
            generation,
          )
        : ready(
            Reason.Succeeded,
            quoteRequest(observed.requestId, `${exists}${members.summary}`),
            generation,
          );
  return guarded(input, actions, "change the project") ?? result(input, actions, change);
}

/** The sharing changes spec.members asks for (none when it is unset: berth leaves sharing alone). */
function planMembers(input: { project: Project; observed: ProjectObserved }): {
  actions: MemberAction[];
  problem?: Problem | undefined;
  waiting?: string;
  summary: string;
} {
  const members = input.project.spec.members;
  const { me, shares, emailUsers } = input.observed;
  if (members === undefined) return { actions: [], summary: "" };
  const problem =
    me === undefined
      ? undefined
      : scopeProblem(me, membersScopes, "manage the project's members (spec.members)");
  if (problem !== undefined) return { actions: [], problem, summary: "" };
  if (shares === undefined) return { actions: [], waiting: "reading the project's members", summary: "" };
  const diff = diffMembers(members, { shares, keyUserId: me?.user.id, emailUsers: emailUsers ?? {} });
  const others = shares.filter((s) => s.accountOwner !== true).length;
  return { ...diff, summary: `; shared with ${others} user(s) as spec.members says` };
}

function guarded(
  input: { project: Project; observed: ProjectObserved; now: Date },
  actions: ProjectAction[],
  purpose: string,
  alsoNeeded: readonly string[] = [],
): ProjectPlan | undefined {
  const me = input.observed.me;
  const problem =
    me === undefined
      ? undefined
      : scopeProblem(me, [...actions.flatMap((a) => scopes[a.type]), ...alsoNeeded], purpose);
  return problem === undefined ? undefined : blocked(input, problem);
}

function blocked(
  input: { project: Project; observed: ProjectObserved; now: Date },
  problem: Problem,
): ProjectPlan {
  return result(input, [], problemChange(problem, input.project.metadata.generation ?? 0));
}

function result(
  input: { project: Project; observed: ProjectObserved; now: Date },
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
  return { actions, status, stalled: isStalled };
}
