import { costField, statedHourly } from "../service/cost.ts";
import type { ExternalApp } from "./memory.ts";
import type { AppPlan } from "./plan-common.ts";

/**
 * status.cost.hourly from what the service last said the app is charged now (its status read). Not
 * read yet: the status keeps what it had; read without a cost, or gone: nothing is shown.
 */
export function withAppCost(plan: AppPlan, external: ExternalApp): AppPlan {
  if (external.status === undefined && !external.gone) return plan;
  const { cost: _previous, ...status } = plan.status;
  const hourly = external.gone || external.status === undefined ? undefined : statedHourly(external.status);
  return { ...plan, status: { ...status, ...costField(hourly) } };
}
