import type { Order } from "../../hosting/index.ts";
import { quoteRequest } from "../skeleton/condition-changes.ts";
import type { Recorded } from "../skeleton/intents.ts";
import { clientOf, type Doing, type ObjectFact } from "../skeleton/kind.ts";
import type { OrderAction, OrderFact } from "./actions.ts";
import { orderSettled, phaseOf } from "./desired.ts";
import { nextReadMs } from "./observe.ts";
import { deprovision, performCount } from "./perform-count.ts";
import { performReplace } from "./perform-replace.ts";
import type { OrderPerformContext, OrderStep } from "./perform-step.ts";
import type { OrderPolls } from "./plan-common.ts";

export const doingForOrder: Doing<OrderAction> = {
  estimate: (action) =>
    action.prepares === "update"
      ? "asking for an estimate of more servers for a higher spec.count (dry run)"
      : "asking for an estimate (dry run)",
  order: "placing the order",
  adopt: "adopting the order",
  deprovision: "deprovisioning the servers",
  growOrder: "ordering more servers for a higher spec.count",
  adoptGrowth: "adopting the growth order",
  shrink: "deprovisioning servers for a lower spec.count",
  power: (action) =>
    `${action.action === "wake" ? "waking" : "hibernating"} ${action.addresses.length} server(s) for spec.power`,
  replace: "replacing a server",
  refuseReplace: "refusing a replace request",
};

/**
 * Carries out one action: a call to the service and the status fields that
 * record its answer (the skeleton writes them, with the intent's end, in its one status write).
 */
export async function* performServerOrder(
  action: OrderAction,
  context: OrderPerformContext,
  polls: OrderPolls,
): AsyncGenerator<OrderFact | ObjectFact> {
  const { deps, object } = context;
  const step: OrderStep = {
    context,
    polls,
    client: () => clientOf(context),
    event(reason, requestId, note) {
      deps.recorder.record(object, "Normal", reason, quoteRequest(requestId, note), action.type);
    },
  };
  switch (action.type) {
    case "estimate": {
      const answer = await step.client().estimateServers(action.input, {
        idempotencyKey: action.idempotencyKey,
      });
      const { estimate } = answer;
      const { requestId } = answer.$metadata;
      yield { type: "estimated", estimate: { idempotencyKey: action.idempotencyKey, estimate } };
      yield { type: "answered", requestId };
      step.event(
        "Estimated",
        requestId,
        `the service estimates ${estimate.hourlyCost} ${estimate.currency} per hour for ${estimate.count} × ${estimate.instanceType} in ${estimate.zone}`,
      );
      return;
    }
    case "order": {
      // The skeleton recorded the intent: after an uncertain failure the next reconcile looks for the order first.
      const order = await step.client().orderServers(action.input, { idempotencyKey: action.intent.key });
      yield following(step, order);
      const { requestId } = order.$metadata;
      yield { type: "answered", requestId };
      const { count, instanceType, zone } = action.input;
      step.event("Ordered", requestId, `placed order ${order.id}: ${count} × ${instanceType} in ${zone}`);
      yield recordedOrder(order);
      return;
    }
    case "adopt":
      yield following(step, action.order);
      step.event(
        "Adopted",
        undefined,
        `adopted order ${action.order.id}, placed by an earlier call whose answer was lost`,
      );
      yield recordedOrder(action.order);
      return;
    case "deprovision":
      yield* deprovision(
        step,
        action.addresses,
        (addresses) =>
          `deprovisioning ${addresses.length} server(s) of order ${action.orderId}, as this ServerOrder was deleted`,
      );
      return;
    case "growOrder":
    case "adoptGrowth":
    case "shrink":
    case "power":
      yield* performCount(step, action);
      return;
    case "replace":
    case "refuseReplace":
      yield* performReplace(step, action);
      return;
  }
}

/**
 * The order this ServerOrder now follows, known from an answer rather than a read. A settled order's
 * servers are listed next, without waiting for the drift check (nor for this write's own watch
 * event, which is no news).
 */
function following({ context, polls }: OrderStep, order: Order): OrderFact {
  const { deps, resource } = context;
  const dueAt = deps.now() + (orderSettled(order) ? 0 : nextReadMs(deps, order, polls));
  return { type: "following", order, generation: resource.metadata.generation ?? 0, dueAt };
}

/** The order's ID, with the intent's end in one write: from there on the ServerOrder never orders again. */
export function recordedOrder(order: Order): Recorded {
  return { type: "recorded", status: { orderId: order.id, phase: phaseOf(order) } };
}
