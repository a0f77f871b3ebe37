import { finalizer, projectNames } from "../../api/meta.ts";
import type { Project } from "../../api/project.ts";
import { isHostingError } from "../../hosting/index.ts";
import { ensureFinalizer, type KubeObject, removeFinalizer } from "../../runtime/index.ts";
import { settleActionFailure } from "../shared/act-failure.ts";
import { type ControllerDeps, resourceTypeOf } from "../shared/deps.ts";
import { describeFailure, type Failure } from "../shared/failure.ts";
import type { Connection } from "../shared/hosting-access.ts";
import { countRefusal } from "../shared/memory.ts";
import { actOnMember, memberDoing } from "./act-members.ts";
import type { ProjectMemory, ProjectObserved } from "./observed.ts";
import type { ProjectAction } from "./plan.ts";

export const projectType = resourceTypeOf(projectNames);

export interface ProjectActInput {
  deps: ControllerDeps;
  object: KubeObject;
  project: Project;
  memory: ProjectMemory;
  observed: ProjectObserved;
  connection: Connection | undefined;
}

/** Carries out the actions in order; stops at the first failure. Returns the object (undefined once released). */
export async function actOnProject(
  input: ProjectActInput,
  actions: readonly ProjectAction[],
): Promise<{ object: KubeObject | undefined; failure: Failure | undefined }> {
  const { deps, memory, observed } = input;
  let object: KubeObject | undefined = input.object;
  const event = (reason: string, note: string, action: string) =>
    deps.recorder.record(object ?? input.object, "Normal", reason, note, action);
  const quote = (requestId: string | undefined) => {
    if (requestId !== undefined) observed.requestId = requestId;
    return requestId === undefined ? "" : ` (request ${requestId})`;
  };
  for (const action of actions) {
    const client = input.connection?.client;
    const projectId = memory.project?.id ?? input.project.status?.projectId ?? "";
    try {
      switch (action.type) {
        case "addFinalizer":
          object = await ensureFinalizer(deps.kube, projectType, input.object, finalizer);
          break;
        case "removeFinalizer":
          await removeFinalizer(deps.kube, projectType, object ?? input.object, finalizer);
          object = undefined;
          break;
        case "create": {
          if (client === undefined) throw new TypeError("create needs a connection");
          const created = await client.createProject(
            { name: action.name },
            { idempotencyKey: action.idempotencyKey },
          );
          // The answer promises only the id: the project is named as asked.
          memory.project = { id: created.id, name: action.name };
          memory.gone = false;
          memory.uncertainCreate = false;
          memory.readGeneration = input.project.metadata.generation ?? 0;
          // A new project is shared with nobody yet: its shares are read at once, then spec.members applied.
          if (input.project.spec.members !== undefined) memory.driftDueAt = deps.now();
          event(
            "Created",
            `created project ${action.name} (${created.id})${quote(created.$metadata.requestId)}`,
            "create",
          );
          break;
        }
        case "rename": {
          if (client === undefined) throw new TypeError("rename needs a connection");
          const renamed = await client.renameProject(projectId, action.name);
          memory.project = renamed;
          event(
            "Renamed",
            `renamed project ${projectId} to ${renamed.name}${quote(renamed.$metadata.requestId)}`,
            "rename",
          );
          break;
        }
        case "delete": {
          if (client === undefined) throw new TypeError("delete needs a connection");
          try {
            const metadata = await client.deleteProject(projectId);
            event("Deleted", `deleted project ${projectId}${quote(metadata.requestId)}`, "delete");
          } catch (error) {
            if (!isHostingError(error) || error.code !== "not_found") throw error;
          }
          memory.gone = true;
          break;
        }
        case "addMember":
        case "changeMember":
        case "removeMember": {
          if (client === undefined) throw new TypeError("sharing needs a connection");
          const context = { client, projectId, memory, now: deps.now() };
          const refused = await actOnMember(
            {
              ...context,
              event: (reason, note, requestId) => event(reason, `${note}${quote(requestId)}`, action.type),
            },
            action,
          );
          if (refused !== undefined) {
            settleActionFailure(input, action.type, refused);
            observed.shares = memory.shares;
            return { object, failure: refused };
          }
          break;
        }
      }
    } catch (error) {
      if (!isHostingError(error)) throw error;
      observed.shares = memory.shares;
      const failure = describeFailure(error, doing(action));
      if (action.type === "create" && failure.uncertain) memory.uncertainCreate = true;
      if (action.type === "create") countRefusal(memory, failure);
      settleActionFailure(input, action.type, failure);
      return { object, failure };
    }
  }
  observed.project = memory.project;
  observed.gone = memory.gone;
  observed.shares = memory.shares;
  return { object, failure: undefined };
}

function doing(action: ProjectAction): string {
  switch (action.type) {
    case "create":
      return "creating the project";
    case "rename":
      return "renaming the project";
    case "addMember":
    case "changeMember":
    case "removeMember":
      return memberDoing(action);
    default:
      return "deleting the project";
  }
}
