import { appNames, finalizer, projectNames } from "../../api/meta.ts";
import type { Project } from "../../api/project.ts";
import { type CallOptions, isHostingError, paginate, type Share } from "../../hosting/index.ts";
import { connectForResource } from "../service/connect.ts";
import { type ControllerDeps, resourceTypeOf } from "../service/deps.ts";
import { stalledBy } from "../service/failure.ts";
import type { Connection } from "../service/hosting-access.ts";
import { createdCandidates, heldByOthers } from "../service/lookup.ts";
import { Reason } from "../service/reasons.ts";
import { pinningProblem, scopeProblem } from "../service/scopes.ts";
import { pendingRequest, reconcileRequest } from "../skeleton/annotations.ts";
import { mayHaveCreated, pendingCreate } from "../skeleton/intents.ts";
import type { Observation } from "../skeleton/kind.ts";
import { mayCall } from "../skeleton/policies.ts";
import { deferFirstRead, isSettled, jittered } from "../skeleton/schedule.ts";
import type { ProjectKnowledge, ProjectMemory } from "./memory.ts";
import { projectName } from "./plan.ts";
import { membersScopes } from "./plan-common.ts";

/** Reads credentials and identity, the Apps that use the project, and the project when due, starting from the memory. */
export async function observeProject(
  deps: ControllerDeps,
  project: Project,
  memory: ProjectMemory,
): Promise<Observation<ProjectKnowledge>> {
  const knowledge: ProjectKnowledge = {
    ...memory,
    problem: undefined,
    me: undefined,
    clusterApps: [],
    apps: deps.informer(resourceTypeOf(appNames)).list(),
    serviceApps: undefined,
    requestId: project.status?.lastRequestId,
  };
  const result: Observation<ProjectKnowledge> = { knowledge, connection: undefined, failure: undefined };
  const deleting = project.metadata.deletionTimestamp !== undefined;
  const projectId = project.status?.projectId ?? project.spec.projectId ?? memory.project?.id;
  if (deleting) {
    if (project.spec.deletionPolicy === "Orphan" || !(project.metadata.finalizers ?? []).includes(finalizer))
      return result;
    knowledge.clusterApps = appsUsing(deps, project, projectId);
    if (knowledge.clusterApps.length > 0) return result;
  } else if (project.spec.suspend) return result;
  await connectForResource(deps, project, result, "reading the project at the service", (connection) =>
    readService(deps, project, knowledge, connection, projectId, deleting),
  );
  return result;
}

/** Reads into `knowledge`, this observe's own draft. */
async function readService(
  deps: ControllerDeps,
  project: Project,
  knowledge: ProjectKnowledge,
  { client, me }: Connection,
  projectId: string | undefined,
  deleting: boolean,
): Promise<void> {
  const now = deps.now();
  const note = (requestId: string | undefined) => {
    if (requestId !== undefined) knowledge.requestId = requestId;
  };
  const refuse = (needed: string[], purpose: string): boolean => {
    knowledge.problem = scopeProblem(me, needed, purpose);
    return knowledge.problem !== undefined;
  };
  if (projectId === undefined) {
    if (
      !mayHaveCreated(project.status, "createProject", knowledge) ||
      refuse(["projects:read"], "look the project up")
    )
      return;
    const name = pendingCreate(project.status, "createProject").name ?? projectName(project);
    const found = await createdCandidates(
      async (cursor) => {
        const page = await client.listProjects({ name, cursor });
        note(page.$metadata.requestId);
        return page;
      },
      heldByOthers(deps, resourceTypeOf(projectNames), project.metadata.uid, "projectId"),
      project.metadata.creationTimestamp,
    );
    if (found.length > 1) {
      knowledge.problem = stalledBy(
        Reason.DuplicateCreated,
        `a create of project ${name} had an unknown outcome and ${found.length} projects of that name now exist ` +
          `(${found.map((p) => p.id).join(", ")}); set spec.projectId to the one to keep and delete the others`,
      );
      return;
    }
    knowledge.uncertainCreate = false;
    knowledge.lookedUpNothing = found[0] === undefined;
    if (found[0] !== undefined) knowledge.project = found[0];
    return;
  }
  knowledge.problem = pinningProblem(me, projectId, "use the project");
  if (knowledge.problem !== undefined) return;
  if (deleting) {
    if (refuse(["apps:read"], "check the project has no apps before deleting it")) return;
    try {
      // Every page: a short or empty page with a cursor does not mean "no apps".
      const names: string[] = [];
      for await (const app of paginate(async (cursor) => {
        const page = await client.listApps(projectId, { cursor });
        note(page.$metadata.requestId);
        return page;
      })) {
        names.push(app.name);
      }
      knowledge.serviceApps = names;
    } catch (error) {
      // The project is already gone (the owner's key was checked on connecting): nothing to delete.
      if (!isHostingError(error) || error.code !== "not_found") throw error;
      note(error.requestId);
      knowledge.gone = true;
    }
    return;
  }
  const generation = project.metadata.generation ?? 0;
  const request = pendingRequest(reconcileRequest(project), project.status?.lastHandledReconcileAt);
  const settled = isSettled(project, generation) && request === undefined;
  const timing = { now, intervalMs: deps.settings.driftIntervalMs, random: deps.random };
  if (
    knowledge.project === undefined &&
    deferFirstRead(knowledge, { generation, settled }, timing, "driftDueAt")
  )
    return;
  const due =
    knowledge.readGeneration !== generation ||
    (request !== undefined && request !== knowledge.servedRequest) ||
    (knowledge.driftDueAt !== undefined && knowledge.driftDueAt <= now);
  if (project.spec.members === undefined) knowledge.shares = undefined;
  const sharesDue = project.spec.members !== undefined && (due || knowledge.shares === undefined);
  // A drift check, or the spread first read after a restart: after the user's work.
  const background = knowledge.readGeneration === generation && request === undefined;
  const options: CallOptions = { priority: background ? "background" : "user" };
  if (due) {
    if (refuse(["projects:read"], "read the project")) return;
    await readProject(project, knowledge, { client, projectId, options, note });
    knowledge.readGeneration = generation;
    knowledge.servedRequest = reconcileRequest(project);
    knowledge.driftDueAt = now + jittered(deps.settings.driftIntervalMs, deps.random);
  }
  // Checked before any sharing call: without projects:admin the plan stalls MissingScopes, unless
  // the policies hold back every change to the shares (then the members are only not compared).
  if (sharesDue && !knowledge.gone) {
    const unreadable = scopeProblem(me, membersScopes, "manage the project's members (spec.members)");
    if (unreadable === undefined) knowledge.shares = await listShares(client, projectId, options, note);
    else if (mayCall(project.spec, "update")) knowledge.problem = unreadable;
  }
}

async function readProject(
  project: Project,
  knowledge: ProjectKnowledge,
  {
    client,
    projectId,
    options,
    note,
  }: {
    client: Connection["client"];
    projectId: string;
    options: CallOptions;
    note: (requestId: string | undefined) => void;
  },
): Promise<void> {
  try {
    const read = await client.getProject(projectId, options);
    note(read.$metadata.requestId);
    knowledge.project = read;
    knowledge.gone = false;
  } catch (error) {
    if (!isHostingError(error) || error.code !== "not_found") throw error;
    note(error.requestId);
    if (project.spec.projectId !== undefined && project.status?.projectId === undefined) throw error;
    knowledge.project = undefined;
    knowledge.gone = true;
  }
}

/** Every share of the project: every page (a short page with a cursor is not the end). */
async function listShares(
  client: Connection["client"],
  projectId: string,
  options: CallOptions,
  note: (requestId: string | undefined) => void,
): Promise<Share[]> {
  const resource = { type: "project", projectId } as const;
  const shares: Share[] = [];
  for await (const share of paginate(async (cursor) => {
    const page = await client.listShares(resource, { ...(cursor === undefined ? {} : { cursor }) }, options);
    note(page.$metadata.requestId);
    return page;
  })) {
    shares.push(share);
  }
  return shares;
}

/** Apps in the cluster that still use the project: by projectRef in its namespace, or by ID anywhere. */
export function appsUsing(deps: ControllerDeps, project: Project, projectId: string | undefined): string[] {
  return deps
    .informer(resourceTypeOf(appNames))
    .list()
    .filter((app) => {
      const spec = app.spec as { projectRef?: { name?: string }; projectId?: string } | undefined;
      const status = app.status as { projectId?: string } | undefined;
      const sameNamespace = app.metadata.namespace === project.metadata.namespace;
      return (
        (sameNamespace && spec?.projectRef?.name === project.metadata.name) ||
        (projectId !== undefined && (spec?.projectId === projectId || status?.projectId === projectId))
      );
    })
    .map((app) => `${app.metadata.namespace}/${app.metadata.name}`);
}
