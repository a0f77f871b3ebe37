import type { Project, ProjectStatus } from "../../api/project.ts";

/** What other workloads read from a Project's output ConfigMap. */
export function projectOutputs(_project: Project, status: ProjectStatus): Record<string, string> {
  return status.projectId === undefined ? {} : { projectId: status.projectId };
}
