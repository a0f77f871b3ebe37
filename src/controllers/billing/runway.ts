import { costStatusSchema, type Money } from "../../api/cost.ts";
import type { KubeObject } from "../../runtime/index.ts";
import { sumMoney } from "../service/cost.ts";

/** Under this many hours of runway a credential's balance is low: a Warning, and the alert's threshold. */
export const lowRunwayHours = 24;

/** status.cost.hourly of a berth resource, when its status states one. */
export function hourlyCostOf(object: KubeObject): Money | undefined {
  const cost = (object.status as { cost?: unknown } | undefined)?.cost;
  const parsed = costStatusSchema.safeParse(cost ?? {});
  return parsed.success ? parsed.data.hourly : undefined;
}

/**
 * What berth runs on a credential costs per hour: the sum of the costs its resources state. Those
 * that state none add nothing (they are not known to cost anything). Undefined when none states one,
 * or they state different currencies.
 */
export function spendOf(resources: readonly KubeObject[]): Money | undefined {
  const stated = resources.map(hourlyCostOf).filter((m): m is Money => m !== undefined);
  return sumMoney(stated);
}

/** Hours the balance lasts at this spend; undefined when it can't be said (no spend, other currencies). */
export function runwayHours(balance: Money | undefined, spend: Money | undefined): number | undefined {
  if (balance === undefined || spend === undefined || balance.currency !== spend.currency) return undefined;
  const perHour = Number(spend.amount);
  if (!(perHour > 0)) return undefined;
  return Math.max(0, Number(balance.amount)) / perHour;
}

/** Whether the runway is low now, and whether it just crossed under the threshold (warn once per crossing). */
export function runwayCrossing(
  wasLow: boolean,
  runway: number | undefined,
): { low: boolean; crossed: boolean } {
  const low = runway !== undefined && runway < lowRunwayHours;
  return { low, crossed: low && !wasLow };
}
