import type { Money } from "../../api/cost.ts";
import type { Server } from "../../hosting/index.ts";
import { costField, statedHourly, sumMoney } from "../service/cost.ts";
import type { OrderPlan } from "./plan-common.ts";

/** What the order's servers are charged now (a hibernated one still pays for its disk), when every one says. */
export function ordersHourly(servers: readonly Server[]): Money | undefined {
  const stated = servers.map(statedHourly);
  if (stated.some((m) => m === undefined)) return undefined;
  return sumMoney(stated.filter((m): m is Money => m !== undefined));
}

/**
 * status.cost.hourly: the sum of what the service says each of the order's servers costs now. Not
 * listed yet: the status keeps what it had; no servers, or one without a stated cost: nothing.
 */
export function withOrderCost(
  plan: OrderPlan,
  knowledge: { servers: Server[] | undefined; gone: boolean },
): OrderPlan {
  if (knowledge.servers === undefined && !knowledge.gone) return plan;
  const { cost: _previous, ...status } = plan.status;
  const hourly = knowledge.gone ? undefined : ordersHourly(knowledge.servers ?? []);
  return { ...plan, status: { ...status, ...costField(hourly) } };
}
