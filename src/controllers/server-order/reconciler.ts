import { serverOrderSchema } from "../../api/server-order.ts";
import type { Reconciler } from "../../runtime/index.ts";
import type { ControllerDeps } from "../service/deps.ts";
import { kindReconciler } from "../skeleton/kind-reconciler.ts";
import { earliest } from "../skeleton/schedule.ts";
import { orderChanges } from "./actions.ts";
import { CatalogCache } from "./catalog.ts";
import { serverOrderType } from "./kind.ts";
import { learnOrder } from "./learn.ts";
import { newOrderMemory, rememberOrder } from "./memory.ts";
import { claimedOrderIds, observeServerOrder } from "./observe.ts";
import { serverOrderOutputs } from "./outputs.ts";
import { doingForOrder, performServerOrder } from "./perform.ts";
import { orderPlans } from "./plan.ts";
import { type OrderPolls, pollMs } from "./plan-common.ts";
import { settleOrderIntent } from "./settle.ts";
import { orderSpend } from "./spend.ts";

/** What every ServerOrder reconcile shares besides the operator's deps. */
export interface OrderSettings {
  catalogs: CatalogCache;
  polls: OrderPolls;
}

/** The catalog cache and the poll intervals, from the operator's settings. */
export function orderSettings(deps: Pick<ControllerDeps, "now" | "settings">): OrderSettings {
  const { polls } = deps.settings;
  return {
    catalogs: new CatalogCache({ now: deps.now }),
    // A deprovision is like a stop; an order in flight without pollAfterSec like a start.
    // Hibernating and waking are like stopping and starting.
    polls: { orderMs: polls.startingMs, deprovisionMs: polls.stoppingMs, powerMs: polls.stoppingMs },
  };
}

/**
 * observe → (plan → perform → learn)* → plan → one status write, for one ServerOrder. Up to three
 * rounds: finalizer and dry run, then the order (an estimate within budget is ordered at once), then
 * nothing left.
 */
export function serverOrderReconciler(deps: ControllerDeps, { catalogs, polls }: OrderSettings): Reconciler {
  return kindReconciler(deps, {
    type: serverOrderType,
    schema: serverOrderSchema,
    rounds: 3,
    observe: (serverOrder, memory, hosting) =>
      observeServerOrder({ ...deps, hosting }, serverOrder, memory ?? newOrderMemory(), { catalogs, polls }),
    ...orderPlans,
    holds: claimedOrderIds,
    perform: (action, context) => performServerOrder(action, context, polls),
    learn: learnOrder,
    settle: settleOrderIntent,
    doing: doingForOrder,
    changes: orderChanges,
    schedule: (knowledge, plan, now) => ({
      knowledge,
      dueAt: earliest(
        // Work the round limit left over.
        plan.actions.length > 0 ? now.getTime() : undefined,
        knowledge.orderDueAt,
        plan.poll === undefined ? undefined : now.getTime() + pollMs(plan.poll, polls),
      ),
    }),
    remember: rememberOrder,
    spend: orderSpend,
    waiting: (knowledge) => !knowledge.grids.ok,
    outputs: serverOrderOutputs,
  });
}
