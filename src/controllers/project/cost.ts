import { costStatusSchema, type Money } from "../../api/cost.ts";
import type { ProjectStatus } from "../../api/project.ts";
import type { KubeObject } from "../../runtime/index.ts";
import { costField, sumMoney } from "../service/cost.ts";

/** What an App at the service (by its status) is charged per hour, or null when its status does not say. */
function appHourly(app: KubeObject): Money | null {
  const status = (app.status ?? {}) as { cost?: unknown };
  const parsed = costStatusSchema.safeParse(status.cost ?? {});
  return parsed.success ? (parsed.data.hourly ?? null) : null;
}

/**
 * The sum of what the service charges per hour for the project's Apps, in any namespace, matched by
 * the project ID in their status. Nothing when there are none, or when one of them has no stated cost.
 */
export function projectHourly(projectId: string | undefined, apps: readonly KubeObject[]): Money | undefined {
  if (projectId === undefined) return undefined;
  const members = apps.filter((app) => {
    const status = (app.status ?? {}) as { projectId?: unknown; appId?: unknown };
    return status.projectId === projectId && typeof status.appId === "string";
  });
  const stated = members.map(appHourly);
  if (stated.some((m) => m === null)) return undefined;
  return sumMoney(stated.filter((m): m is Money => m !== null));
}

/** status.cost.hourly of a Project from its Apps' statuses (as the App informer holds them). */
export function withProjectCost(status: ProjectStatus, apps: readonly KubeObject[]): ProjectStatus {
  const { cost: _previous, ...rest } = status;
  return { ...rest, ...costField(projectHourly(rest.projectId, apps)) };
}
