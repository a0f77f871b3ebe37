import type { Intent } from "../../api/intents.ts";
import type { Project } from "../../api/project.ts";
import { type Settlement, settleCreate } from "../skeleton/intents.ts";
import type { ProjectFact } from "./actions.ts";
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
