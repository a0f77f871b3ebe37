import { appNames, finalizer, projectNames } from "../../api/meta.ts";
import type { Project } from "../../api/project.ts";
import { type CallOptions, isHostingError, paginate, type Share } from "../../hosting/index.ts";
import { pendingRequest, reconcileRequest } from "../shared/annotations.ts";
import { connectForResource } from "../shared/connect.ts";
import { type ControllerDeps, resourceTypeOf } from "../shared/deps.ts";
import { type Failure, stalledBy } from "../shared/failure.ts";
import type { Connection } from "../shared/hosting-access.ts";
import { createdCandidates, heldByOthers } from "../shared/lookup.ts";
import { Reason } from "../shared/reasons.ts";
import { deferFirstRead, isSettled, jittered } from "../shared/schedule.ts";
import { pinningProblem, scopeProblem } from "../shared/scopes.ts";
import type { ProjectMemory, ProjectObserved } from "./observed.ts";
import { projectName } from "./plan.ts";

export interface ProjectObservation {
  observed: ProjectObserved;
  connection: Connection | undefined;
  failure: Failure | undefined;
}

/** Reads credentials and identity, the Apps that use the project, and the project when due. */
export async function observeProject(
  deps: ControllerDeps,
  project: Project,
  memory: ProjectMemory,
): Promise<ProjectObservation> {
  const observed: ProjectObserved = {
    problem: undefined,
    me: undefined,
    project: memory.project,
    gone: memory.gone,
    refusedCreates: memory.refusedCreates,
    clusterApps: [],
    serviceApps: undefined,
    requestId: project.status?.lastRequestId,
    shares: memory.shares,
    emailUsers: memory.emailUsers,
  };
  const result: ProjectObservation = { observed, connection: undefined, failure: undefined };
  const deleting = project.metadata.deletionTimestamp !== undefined;
  const projectId = project.status?.projectId ?? project.spec.projectId ?? memory.project?.id;
  if (deleting) {
    if (project.spec.deletionPolicy === "Orphan" || !(project.metadata.finalizers ?? []).includes(finalizer))
      return result;
    observed.clusterApps = appsUsing(deps, project, projectId);
    if (observed.clusterApps.length > 0) return result;
  } else if (project.spec.suspend) return result;
  await connectForResource(deps, project, result, "reading the project at the service", (connection) =>
    readService(deps, project, memory, observed, connection, projectId, deleting),
  );
  observed.project = memory.project;
  observed.gone = memory.gone;
  observed.shares = memory.shares;
  return result;
}

async function readService(
  deps: ControllerDeps,
  project: Project,
  memory: ProjectMemory,
  observed: ProjectObserved,
  { client, me }: Connection,
  projectId: string | undefined,
  deleting: boolean,
): Promise<void> {
  const now = deps.now();
  const note = (requestId: string | undefined) => {
    if (requestId !== undefined) observed.requestId = requestId;
  };
  const refuse = (needed: string[], purpose: string): boolean => {
    observed.problem = scopeProblem(me, needed, purpose);
    return observed.problem !== undefined;
  };
  if (projectId === undefined) {
    const mayExist = memory.uncertainCreate || (project.metadata.finalizers ?? []).includes(finalizer);
    if (!mayExist || refuse(["projects:read"], "look the project up")) return;
    const name = projectName(project);
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
      observed.problem = stalledBy(
        Reason.DuplicateCreated,
        `a create of project ${name} had an unknown outcome and ${found.length} projects of that name now exist ` +
          `(${found.map((p) => p.id).join(", ")}); set spec.projectId to the one to keep and delete the others`,
      );
      return;
    }
    memory.uncertainCreate = false;
    observed.lookedUpNothing = found[0] === undefined;
    if (found[0] !== undefined) memory.project = found[0];
    return;
  }
  observed.problem = pinningProblem(me, projectId, "use the project");
  if (observed.problem !== undefined) return;
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
      observed.serviceApps = names;
    } catch (error) {
      // The project is already gone (the owner's key was checked on connecting): nothing to delete.
      if (!isHostingError(error) || error.code !== "not_found") throw error;
      note(error.requestId);
      memory.gone = true;
    }
    return;
  }
  const generation = project.metadata.generation ?? 0;
  const request = pendingRequest(reconcileRequest(project), project.status?.lastHandledReconcileAt);
  const settled = isSettled(project, generation) && request === undefined;
  const timing = { now, intervalMs: deps.settings.driftIntervalMs, random: deps.random };
  if (memory.project === undefined && deferFirstRead(memory, { generation, settled }, timing, "driftDueAt"))
    return;
  const due =
    memory.readGeneration !== generation ||
    (request !== undefined && request !== memory.servedRequest) ||
    (memory.driftDueAt !== undefined && memory.driftDueAt <= now);
  if (project.spec.members === undefined) memory.shares = undefined;
  const sharesDue = project.spec.members !== undefined && (due || memory.shares === undefined);
  // A drift check, or the spread first read after a restart: after the user's work.
  const background = memory.readGeneration === generation && request === undefined;
  const options: CallOptions = { priority: background ? "background" : "user" };
  if (due) {
    if (refuse(["projects:read"], "read the project")) return;
    await readProject(project, memory, { client, projectId, options, note });
    memory.readGeneration = generation;
    memory.servedRequest = reconcileRequest(project);
    memory.driftDueAt = now + jittered(deps.settings.driftIntervalMs, deps.random);
  }
  // Checked before any sharing call: without projects:admin the plan stalls MissingScopes.
  if (
    sharesDue &&
    !memory.gone &&
    !refuse(["projects:admin"], "manage the project's members (spec.members)")
  ) {
    memory.shares = await listShares(client, projectId, options, note);
  }
}

async function readProject(
  project: Project,
  memory: ProjectMemory,
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
    memory.project = read;
    memory.gone = false;
  } catch (error) {
    if (!isHostingError(error) || error.code !== "not_found") throw error;
    note(error.requestId);
    if (project.spec.projectId !== undefined && project.status?.projectId === undefined) throw error;
    memory.project = undefined;
    memory.gone = true;
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
