import type { ServerOrderStatus } from "../../api/server-order.ts";
import { HostingApiError, type HostingClient, type Order } from "../../hosting/index.ts";
import { type KubeObject, patchStatus } from "../../runtime/index.ts";
import type { ObjectFact } from "../shared/kind.ts";
import { orderSettled } from "./desired.ts";
import { serverOrderType } from "./kind.ts";
import { nextReadMs } from "./observe.ts";
import type { OrderFact, OrderStep } from "./perform.ts";
import type { OrderAction } from "./plan-common.ts";

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

/** Growth orders, shrinking and power: each writes status before or right after its call. */
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
      yield* recordGrowth(step, step.context.object, action.order);
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
  const { deps, object } = step.context;
  // Status says a growth call may be in flight before it is sent, so a crash during it is noticed.
  const marked = (
    await patchStatus(deps.kube, serverOrderType, object, {
      ...statusOf(object),
      growing: action.marker,
      ...(action.estimate === undefined ? {} : { estimate: action.estimate }),
    })
  ).object;
  yield { type: "written", object: marked };
  let order: Awaited<ReturnType<HostingClient["orderServers"]>>;
  try {
    order = await step.client().orderServers(action.input, { idempotencyKey: action.idempotencyKey });
  } catch (error) {
    // The service's own refusal placed nothing: the marker goes, so the next attempt is a plain one.
    if (error instanceof HostingApiError && error.kind === "terminal") {
      const { growing: _, ...status } = statusOf(marked);
      yield {
        type: "written",
        object: (await patchStatus(deps.kube, serverOrderType, marked, status)).object,
      };
    }
    throw error;
  }
  const { requestId } = order.$metadata;
  yield { type: "answered", requestId };
  step.event(
    "Ordered",
    requestId,
    `placed growth order ${order.id}: ${action.input.count} more × ${action.input.instanceType} (spec.count ${action.marker.target})`,
  );
  yield* recordGrowth(step, marked, order);
}

/** Records the growth order and clears the marker in one write: from here on it is never ordered again. */
async function* recordGrowth(step: OrderStep, object: KubeObject, order: Order): Facts {
  const { deps, resource } = step.context;
  const { growing, ...status } = statusOf(object);
  const count = growing?.count ?? order.count ?? order.servers.length;
  const entry = { id: order.id, count, generation: resource.metadata.generation ?? 0 };
  const recorded = status.growthOrders ?? [];
  const growthOrders = recorded.some((o) => o.id === order.id) ? recorded : [...recorded, entry];
  yield { type: "grown", order };
  // A settled one's servers are listed next, like the first order's (its servers are not listed yet).
  yield { type: "due", at: deps.now() + (orderSettled(order) ? 0 : nextReadMs(deps, order, step.polls)) };
  const written = await patchStatus(deps.kube, serverOrderType, object, { ...status, growthOrders });
  yield { type: "written", object: written.object };
}

async function* shrink(step: OrderStep, action: Extract<OrderAction, { type: "shrink" }>): Facts {
  const { deps, object } = step.context;
  if (!action.alreadyRecorded) {
    // Recorded before the call: after a crash the same servers are deprovisioned, never others.
    const status = statusOf(object);
    const removing = [...new Set([...(status.removing ?? []), ...action.addresses])];
    const removedCount = (status.removedCount ?? 0) + action.addresses.length;
    const written = await patchStatus(deps.kube, serverOrderType, object, {
      ...status,
      removing,
      removedCount,
    });
    yield { type: "written", object: written.object };
  }
  yield* deprovision(
    step,
    action.addresses,
    (addresses) => `deprovisioning ${addresses.join(", ")}, as spec.count was lowered`,
  );
  yield { type: "due", at: deps.now() + step.polls.deprovisionMs };
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

function statusOf(object: KubeObject): ServerOrderStatus {
  return (object.status ?? {}) as ServerOrderStatus;
}
