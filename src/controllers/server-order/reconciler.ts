import { type ServerOrder, serverOrderSchema } from "../../api/server-order.ts";
import { type KubeObject, Outcome, type Reconciler } from "../../runtime/index.ts";
import type { ControllerDeps } from "../shared/deps.ts";
import { ReconcileError } from "../shared/errors.ts";
import { Memory } from "../shared/memory.ts";
import { earliest, retryAt } from "../shared/schedule.ts";
import { invalidSpec, withProblem, writeStatus } from "../shared/status.ts";
import { actOnServerOrder, type OrderActResult } from "./act.ts";
import { CatalogCache } from "./catalog.ts";
import { serverOrderType } from "./kind.ts";
import { type OrderObservation, observeServerOrder } from "./observe.ts";
import { newOrderMemory, type OrderMemory } from "./observed.ts";
import { planServerOrder } from "./plan.ts";
import type { OrderPlan, OrderPolls } from "./plan-common.ts";

/** Plan-act rounds per reconcile: finalizer and dry run, then the order, then nothing left. */
const maxRounds = 3;

/** observe → (plan → act)* → one status write, for one ServerOrder. */
export function serverOrderReconciler(deps: ControllerDeps): Reconciler {
  const memories = new Memory<OrderMemory>(newOrderMemory);
  const informer = deps.informer(serverOrderType);
  const catalogs = new CatalogCache({ now: deps.now });
  // A deprovision is like a stop; an order in flight without pollAfterSec like a start.
  const polls: OrderPolls = {
    orderMs: deps.settings.polls.startingMs,
    deprovisionMs: deps.settings.polls.stoppingMs,
  };
  return async ({ key }) => {
    const object = informer.get(key);
    if (object === undefined) {
      memories.forget(key);
      return Outcome.done();
    }
    const parsed = serverOrderSchema.safeParse(object);
    if (!parsed.success) return invalidSpec(deps, serverOrderType, object, parsed.error.issues);
    const original = parsed.data;
    const memory = memories.get(key, original.metadata.uid ?? "");
    const observation = await observeServerOrder(deps, original, memory, { catalogs, polls });
    const now = new Date(deps.now());
    const { final, acted, serverOrder } = await converge(
      deps,
      object,
      original,
      memory,
      observation,
      now,
      polls,
    );
    if (acted.object === undefined) {
      memories.forget(key);
      return Outcome.done();
    }
    const generation = serverOrder.metadata.generation ?? 0;
    const status =
      acted.failure === undefined ? final.status : withProblem(final.status, acted.failure, generation, now);
    memory.readySeen = await writeStatus({
      deps,
      type: serverOrderType,
      object: acted.object,
      createdAt: serverOrder.metadata.creationTimestamp,
      previous: original.status,
      next: status,
      readySeen: memory.readySeen,
      problemRecorded: acted.failure !== undefined,
    });
    const failure = acted.failure ?? observation.failure;
    if (failure !== undefined && !failure.stalled) return Outcome.error(new ReconcileError(failure));
    const stalled = final.stalled || failure?.stalled === true;
    const next = earliest(
      // Work the round limit left over (never after a failure: that retries by its own rules).
      final.actions.length > 0 && acted.failure === undefined ? now.getTime() : undefined,
      memory.orderDueAt,
      final.pollMs === undefined ? undefined : now.getTime() + final.pollMs,
      retryAt(deps.settings, now, stalled, !observation.observed.grids.ok),
    );
    return next === undefined ? Outcome.done() : Outcome.requeueAfter(Math.max(0, next - now.getTime()));
  };
}

/**
 * Plans and acts until nothing is left to do now (an estimate answered within budget is ordered in
 * the same reconcile), re-reading the object each round since `act` writes status as it goes.
 * Returns the plan for the status to write.
 */
async function converge(
  deps: ControllerDeps,
  object: KubeObject,
  original: ServerOrder,
  memory: OrderMemory,
  observation: OrderObservation,
  now: Date,
  polls: OrderPolls,
): Promise<{ final: OrderPlan; acted: OrderActResult; serverOrder: ServerOrder }> {
  const { observed, connection } = observation;
  let serverOrder = original;
  let acted: OrderActResult = { object, failure: undefined };
  for (let round = 1; ; round++) {
    const plan = planServerOrder({ serverOrder, observed, now, polls });
    if (plan.actions.length === 0 || round > maxRounds) return { final: plan, acted, serverOrder };
    const current = acted.object ?? object;
    acted = await actOnServerOrder(
      { deps, object: current, serverOrder, memory, observed, connection, polls },
      plan.actions,
    );
    if (acted.object === undefined) return { final: plan, acted, serverOrder };
    serverOrder = serverOrderSchema.parse(acted.object);
    if (acted.failure !== undefined) {
      return { final: planServerOrder({ serverOrder, observed, now, polls }), acted, serverOrder };
    }
  }
}
