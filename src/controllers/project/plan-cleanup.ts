import { reconciling } from "../../api/conditions.ts";
import { Reason } from "../service/reasons.ts";
import { released } from "../skeleton/cleanup.ts";
import { blocked, guarded, type ProjectPlan, type ProjectPlanInput, result } from "./plan-common.ts";

/**
 * The Project is being deleted (the skeleton releases an Orphan): it waits for the Apps using it and
 * stalls on apps berth does not manage, then deletes the project and is released.
 */
export function planProjectCleanup(input: ProjectPlanInput): ProjectPlan {
  const { project, observed } = input;
  const generation = project.metadata.generation ?? 0;
  const projectId = project.status?.projectId ?? observed.project?.id;
  const release = () =>
    released(result(input, [], reconciling(Reason.Deleting, "releasing the project", generation)));
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
    guarded(input, [{ type: "delete" }], "delete the project") ??
    released(
      result(
        input,
        [{ type: "delete" }],
        reconciling(Reason.Deleting, `deleting project ${projectId}`, generation),
      ),
    )
  );
}
