import { type ServerOrder, serverOrderSchema } from "../../api/server-order.ts";
import type { Reconciler } from "../../runtime/index.ts";
import type { ControllerDeps } from "../shared/deps.ts";
import { type Converged, kindReconciler, type Round } from "../shared/kind-reconciler.ts";
import { earliest } from "../shared/schedule.ts";
import { actOnServerOrder, type OrderActResult } from "./act.ts";
import { CatalogCache } from "./catalog.ts";
import { serverOrderType } from "./kind.ts";
import { type OrderObservation, observeServerOrder } from "./observe.ts";
import { newOrderMemory, type OrderMemory } from "./observed.ts";
import { serverOrderOutputs } from "./outputs.ts";
import { planServerOrder } from "./plan.ts";
import type { OrderPlan, OrderPolls } from "./plan-common.ts";

/** Plan-act rounds per reconcile: finalizer and dry run, then the order, then nothing left. */
const maxRounds = 3;

/** observe → (plan → act)* → one status write, for one ServerOrder. */
export function serverOrderReconciler(deps: ControllerDeps): Reconciler {
  const catalogs = new CatalogCache({ now: deps.now });
  // A deprovision is like a stop; an order in flight without pollAfterSec like a start.
  const polls: OrderPolls = {
    orderMs: deps.settings.polls.startingMs,
    deprovisionMs: deps.settings.polls.stoppingMs,
    // Hibernating and waking are like stopping and starting.
    powerMs: deps.settings.polls.stoppingMs,
  };
  return kindReconciler(deps, {
    type: serverOrderType,
    schema: serverOrderSchema,
    newMemory: newOrderMemory,
    observe: (serverOrder, memory, hosting) =>
      observeServerOrder({ ...deps, hosting }, serverOrder, memory, { catalogs, polls }),
    converge: (round) => converge(deps, round, polls),
    dueAt: ({ memory, now }, { acted, final }) =>
      earliest(
        // Work the round limit left over (never after a failure: that retries by its own rules).
        final.actions.length > 0 && acted.failure === undefined ? now.getTime() : undefined,
        memory.orderDueAt,
        final.pollMs === undefined ? undefined : now.getTime() + final.pollMs,
      ),
    waiting: ({ observed }) => !observed.grids.ok,
    outputs: serverOrderOutputs,
  });
}

/**
 * Plans and acts until nothing is left to do now (an estimate answered within budget is ordered in
 * the same reconcile), re-reading the object each round since `act` writes status as it goes.
 * Returns the plan for the status to write.
 */
async function converge(
  deps: ControllerDeps,
  { object, resource: original, memory, observation, now }: Round<ServerOrder, OrderMemory, OrderObservation>,
  polls: OrderPolls,
): Promise<Converged<ServerOrder, OrderActResult, OrderPlan>> {
  const { observed, connection } = observation;
  let serverOrder = original;
  let acted: OrderActResult = { object, failure: undefined };
  for (let round = 1; ; round++) {
    const plan = planServerOrder({ serverOrder, observed, now, polls });
    if (plan.actions.length === 0 || round > maxRounds) return { final: plan, acted, resource: serverOrder };
    const current = acted.object ?? object;
    acted = await actOnServerOrder(
      { deps, object: current, serverOrder, memory, observed, connection, polls },
      plan.actions,
    );
    if (acted.object === undefined) return { final: plan, acted, resource: serverOrder };
    serverOrder = serverOrderSchema.parse(acted.object);
    if (acted.failure !== undefined) {
      return { final: planServerOrder({ serverOrder, observed, now, polls }), acted, resource: serverOrder };
    }
  }
}
