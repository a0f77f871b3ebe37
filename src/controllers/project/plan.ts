import { serviceName } from "../../api/common.ts";
import { ready, reconciling } from "../../api/conditions.ts";
import type { Project } from "../../api/project.ts";
import { idempotencyKey } from "../../hosting/index.ts";
import type { Problem } from "../service/failure.ts";
import { Reason } from "../service/reasons.ts";
import { pinnedProjects, scopeProblem } from "../service/scopes.ts";
import type { Plans } from "../skeleton/cleanup.ts";
import { noChange, quoteRequest } from "../skeleton/condition-changes.ts";
import { createIntent } from "../skeleton/intents.ts";
import { createAttempt } from "../skeleton/memory.ts";
import { mayCall } from "../skeleton/policies.ts";
import type { MemberAction, ProjectAction } from "./actions.ts";
import { describeMemberActions, diffMembers } from "./members.ts";
import type { ProjectKnowledge } from "./memory.ts";
import { planProjectCleanup } from "./plan-cleanup.ts";
import {
  blocked,
  guarded,
  membersScopes,
  type ProjectPlan,
  type ProjectPlanInput,
  result,
} from "./plan-common.ts";
import { reaskProjectIntent } from "./settle.ts";

/** How a Project is planned: being there, going away, and a status alone (the skeleton picks). */
export const projectPlans: Plans<Project, ProjectKnowledge, ProjectPlan> = {
  externalId: "projectId",
  plan: (project, observed, now) => planProject({ project, observed, now }),
  planCleanup: (project, observed, now) => planProjectCleanup({ project, observed, now }),
  report: (project, observed, change, now) => result({ project, observed, now }, [], change),
  reask: reaskProjectIntent,
};

/** The service's name for the project: `spec.displayName`, else `metadata.name`. */
export function projectName(project: Project): string {
  return serviceName(project.spec.displayName, project.metadata.name);
}

/** The Project's next step while it is there (the skeleton handles deletion, suspend and problems). Pure. */
export function planProject(input: ProjectPlanInput): ProjectPlan {
  const { project, observed } = input;
  const generation = project.metadata.generation ?? 0;
  const name = projectName(project);
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
    // A create the policies hold back is never sent: the key's pinning is no matter then.
    if (me !== undefined && pinnedProjects(me).length > 0 && mayCall(project.spec, "create")) {
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
    const actions: ProjectAction[] = [{ type: "create", name, idempotencyKey: key, intent }];
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
  const renames: ProjectAction[] = known.name === name ? [] : [{ type: "rename", name, fields: ["name"] }];
  const actions = [...renames, ...members.actions];
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
function planMembers(input: Pick<ProjectPlanInput, "project" | "observed">): {
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
  if (problem !== undefined) {
    // Changes to the shares would be held back anyway: what can't be read is said, not stalled on.
    if (!mayCall(input.project.spec, "update"))
      return {
        actions: [],
        summary: "; spec.members not compared (reading the shares needs projects:admin)",
      };
    return { actions: [], problem, summary: "" };
  }
  if (shares === undefined) return { actions: [], waiting: "reading the project's members", summary: "" };
  const diff = diffMembers(members, { shares, keyUserId: me?.user.id, emailUsers: emailUsers ?? {} });
  const others = shares.filter((s) => s.accountOwner !== true).length;
  return { ...diff, summary: `; shared with ${others} user(s) as spec.members says` };
}
