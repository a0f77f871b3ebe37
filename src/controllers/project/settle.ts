import type { Intent } from "../../api/intents.ts";
import type { Project } from "../../api/project.ts";
import { inputOf, type Settlement, settleCreate } from "../skeleton/intents.ts";
import type { ProjectAction, ProjectFact } from "./actions.ts";
import type { ProjectKnowledge } from "./memory.ts";

/** How a Project's Pending create ended, from the lookup by name observe made. Pure. */
export function settleProjectIntent(
  intent: Intent,
  knowledge: ProjectKnowledge,
  _project: Project,
  _now: Date,
): Settlement<ProjectFact> {
  if (intent.operation !== "createProject") {
    return { outcome: "unsettled", message: "berth does not know this operation; check the service by hand" };
  }
  const { project } = knowledge;
  return settleCreate(
    project !== undefined ? [project] : knowledge.lookedUpNothing === true ? [] : undefined,
    "project",
  );
}

/**
 * A create the lookup found no trace of, sent again under its key and name, so the service's
 * answer settles it before a deletion releases (see `cleanup.ts`). Pure.
 */
export function reaskProjectIntent(intent: Intent): ProjectAction | undefined {
  const name = inputOf<{ name: string }>(intent)?.name;
  if (intent.operation !== "createProject" || typeof name !== "string") return undefined;
  const call = { operation: intent.operation, input: { name }, attempt: intent.attempt, key: intent.key };
  return { type: "create", name, idempotencyKey: intent.key, intent: call };
}
