import type { Project } from "../../api/project.ts";
import { isHostingError } from "../../hosting/index.ts";
import { quoteRequest } from "../skeleton/condition-changes.ts";
import { clientOf, type Doing, type ObjectFact, type PerformContext } from "../skeleton/kind.ts";
import type { ProjectAction, ProjectFact } from "./actions.ts";
import type { ProjectKnowledge } from "./memory.ts";
import { memberDoing, performMember } from "./perform-members.ts";

/** What each action is, for failure messages. */
export const doingForProject: Doing<ProjectAction> = {
  create: "creating the project",
  rename: "renaming the project",
  delete: "deleting the project",
  addMember: memberDoing,
  changeMember: memberDoing,
  removeMember: memberDoing,
};

/** Carries out one action: a call to the service, with an event for each change. */
export async function* performProject(
  action: ProjectAction,
  { deps, object, resource: project, knowledge, connection }: PerformContext<Project, ProjectKnowledge>,
): AsyncGenerator<ProjectFact | ObjectFact> {
  const event = (reason: string, requestId: string | undefined, note: string) =>
    deps.recorder.record(object, "Normal", reason, quoteRequest(requestId, note), action.type);
  const client = () => clientOf({ connection });
  const projectId = knowledge.project?.id ?? project.status?.projectId ?? "";
  switch (action.type) {
    case "create": {
      const created = await client().createProject(
        { name: action.name },
        { idempotencyKey: action.idempotencyKey },
      );
      const { requestId } = created.$metadata;
      yield {
        type: "created",
        // The answer promises only the id: the project is named as asked.
        project: { id: created.id, name: action.name },
        generation: project.metadata.generation ?? 0,
        // A new project is shared with nobody yet: its shares are read at once, then spec.members applied.
        sharesDueAt: project.spec.members === undefined ? undefined : deps.now(),
      };
      yield { type: "answered", requestId };
      event("Created", requestId, `created project ${action.name} (${created.id})`);
      return;
    }
    case "rename": {
      const renamed = await client().renameProject(projectId, action.name);
      const { requestId } = renamed.$metadata;
      yield { type: "renamed", project: renamed };
      yield { type: "answered", requestId };
      event("Renamed", requestId, `renamed project ${projectId} to ${renamed.name}`);
      return;
    }
    case "delete": {
      try {
        const { requestId } = await client().deleteProject(projectId);
        yield { type: "answered", requestId };
        event("Deleted", requestId, `deleted project ${projectId}`);
      } catch (error) {
        if (!isHostingError(error) || error.code !== "not_found") throw error;
      }
      yield { type: "deleted" };
      return;
    }
    case "addMember":
    case "changeMember":
    case "removeMember": {
      // A member the service refused stops the sharing changes after it, as a failed call would.
      if (knowledge.problem !== undefined) return;
      yield* performMember(action, { client: client(), projectId, now: deps.now(), event });
      return;
    }
  }
}
