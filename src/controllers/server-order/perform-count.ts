import type { ServerOrderStatus } from "../../api/server-order.ts";
import type { Order } from "../../hosting/index.ts";
import type { Recorded } from "../skeleton/intents.ts";
import type { ObjectFact } from "../skeleton/kind.ts";
import type { OrderAction, OrderFact } from "./actions.ts";
import { orderSettled } from "./desired.ts";
import { nextReadMs } from "./observe.ts";
import type { OrderStep } from "./perform-step.ts";

type CountAction = Extract<OrderAction, { type: "growOrder" | "adoptGrowth" | "shrink" | "power" }>;
type Facts = AsyncGenerator<OrderFact | ObjectFact>;

/** The service takes at most this many addresses per power or deprovision request. */
const batch = 50;

/** Deprovisions in batches the service takes; a 202 promises no body: states show at the next listing. */
export async function* deprovision(
  step: OrderStep,
  all: readonly string[],
  note: (addresses: string[]) => string,
): Facts {
  for (let i = 0; i < all.length; i += batch) {
    const addresses = all.slice(i, i + batch);
    const accepted = await step.client().deprovisionServers({ addresses, confirm: true });
    yield { type: "passing", addresses, state: "deprovisioning" };
    yield { type: "answered", requestId: accepted.requestId };
    step.event("Deprovisioning", accepted.requestId, note(addresses));
  }
}

const passingState = { hibernate: "hibernating", wake: "waking" } as const;

/** Growth orders, shrinking and power: each records what its call did. */
export async function* performCount(step: OrderStep, action: CountAction): Facts {
  switch (action.type) {
    case "growOrder":
      yield* growOrder(step, action);
      return;
    case "adoptGrowth":
      step.event(
        "Adopted",
        undefined,
        `adopted growth order ${action.order.id}, placed by a call whose answer was lost`,
      );
      yield* recordGrowth(step, action.order, step.context.resource.status?.growing?.count);
      return;
    case "shrink":
      yield* shrink(step, action);
      return;
    case "power":
      yield* power(step, action);
      return;
  }
}

async function* growOrder(step: OrderStep, action: Extract<OrderAction, { type: "growOrder" }>): Facts {
  const order = await step.client().orderServers(action.input, { idempotencyKey: action.intent.key });
  const { requestId } = order.$metadata;
  yield { type: "answered", requestId };
  step.event(
    "Ordered",
    requestId,
    `placed growth order ${order.id}: ${action.input.count} more × ${action.input.instanceType} (spec.count ${action.target})`,
  );
  yield* recordGrowth(step, order, action.input.count);
  if (action.estimate !== undefined) yield { type: "recorded", status: { estimate: action.estimate } };
}

/** Records the growth order (the skeleton writes it with the intent's end): it is never ordered again. */
export async function* recordGrowth(step: OrderStep, order: Order, count: number | undefined): Facts {
  const { deps, resource } = step.context;
  const { growing: _, ...status } = resource.status ?? {};
  const entry = {
    id: order.id,
    count: count ?? order.count ?? order.servers.length,
    generation: resource.metadata.generation ?? 0,
  };
  const recorded = status.growthOrders ?? [];
  const growthOrders = recorded.some((o) => o.id === order.id) ? recorded : [...recorded, entry];
  yield { type: "grown", order };
  // A settled one's servers are listed next, like the first order's (its servers are not listed yet).
  yield { type: "due", at: deps.now() + (orderSettled(order) ? 0 : nextReadMs(deps, order, step.polls)) };
  yield { type: "recorded", status: { growthOrders, growing: undefined } };
}

async function* shrink(step: OrderStep, action: Extract<OrderAction, { type: "shrink" }>): Facts {
  const { deps, resource } = step.context;
  yield* deprovision(
    step,
    action.addresses,
    (addresses) => `deprovisioning ${addresses.join(", ")}, as spec.count was lowered`,
  );
  if (!action.alreadyRecorded) yield recordedRemoval(resource.status, action.addresses);
  yield { type: "due", at: deps.now() + step.polls.deprovisionMs };
}

/** Servers deprovisioned for a lowered spec.count: after this, the same servers are followed until gone. */
export function recordedRemoval(
  status: ServerOrderStatus | undefined,
  addresses: readonly string[],
): Recorded {
  const removing = [...new Set([...(status?.removing ?? []), ...addresses])];
  const removedCount = (status?.removedCount ?? 0) + addresses.length;
  return { type: "recorded", status: { removing, removedCount } };
}

/** One call per change; the servers are read back after `powerMs` to see whether it was acted on. */
async function* power(step: OrderStep, action: Extract<OrderAction, { type: "power" }>): Facts {
  const { deps } = step.context;
  for (let i = 0; i < action.addresses.length; i += batch) {
    const addresses = action.addresses.slice(i, i + batch);
    const accepted = await step.client().powerServers({ addresses, action: action.action });
    yield { type: "passing", addresses, state: passingState[action.action] };
    yield { type: "answered", requestId: accepted.requestId };
    step.event(
      action.action === "wake" ? "Waking" : "Hibernating",
      accepted.requestId,
      `${action.action === "wake" ? "waking" : "hibernating"} ${addresses.length} server(s)`,
    );
  }
  const sentAt = deps.now();
  yield { type: "powerSent", action: action.action, addresses: action.addresses, sentAt };
  yield { type: "due", at: sentAt + step.polls.powerMs };
}
