import { finalizer } from "../../api/meta.ts";
import type { ServerOrder } from "../../api/server-order.ts";
import { HostingApiError, type HostingClient, isHostingError, type Order } from "../../hosting/index.ts";
import { ensureFinalizer, type KubeObject, patchStatus, removeFinalizer } from "../../runtime/index.ts";
import { settleActionFailure } from "../shared/act-failure.ts";
import { quoteRequest } from "../shared/condition-changes.ts";
import type { ControllerDeps } from "../shared/deps.ts";
import { describeFailure, type Failure } from "../shared/failure.ts";
import type { Connection } from "../shared/hosting-access.ts";
import { actOnCount } from "./act-count.ts";
import { actOnReplace } from "./act-replace.ts";
import { orderSettled, phaseOf } from "./desired.ts";
import { serverOrderType } from "./kind.ts";
import { nextReadMs } from "./observe.ts";
import type { OrderMemory, OrderObserved } from "./observed.ts";
import { type OrderAction, type OrderPolls, OrderReason } from "./plan-common.ts";

export interface OrderActInput {
  deps: ControllerDeps;
  object: KubeObject;
  serverOrder: ServerOrder;
  memory: OrderMemory;
  observed: OrderObserved;
  connection: Connection | undefined;
  polls: OrderPolls;
}

export interface OrderActResult {
  /** The object as last written (undefined once released). */
  object: KubeObject | undefined;
  failure: Failure | undefined;
}

const doing: Record<OrderAction["type"], string> = {
  addFinalizer: "adding the finalizer",
  removeFinalizer: "removing the finalizer",
  estimate: "asking for an estimate (dry run)",
  order: "placing the order",
  adopt: "adopting the order",
  deprovision: "deprovisioning the servers",
  growOrder: "ordering more servers",
  adoptGrowth: "adopting the growth order",
  shrink: "deprovisioning servers for a lower spec.count",
  power: "changing the servers' power",
  replace: "replacing a server",
  refuseReplace: "refusing a replace request",
};

/** The service takes at most this many addresses per deprovision request. */
const deprovisionBatch = 50;

/** Carries out the actions in order; stops at the first failure. */
export async function actOnServerOrder(
  input: OrderActInput,
  actions: readonly OrderAction[],
): Promise<OrderActResult> {
  const { observed } = input;
  const current: Current = { object: input.object };
  for (const action of actions) {
    try {
      await actOnce(input, current, action);
    } catch (error) {
      if (!isHostingError(error)) throw error;
      const failure = describeFailure(error, doing[action.type]);
      // Only the service's own refusal is sure to have placed nothing (a 2xx it answered in an
      // unexpected shape is not): the next attempt is then a new order call with a new key.
      if (
        (action.type === "order" || action.type === "growOrder") &&
        error instanceof HostingApiError &&
        error.kind === "terminal"
      ) {
        observed.refused = failure;
      }
      settleActionFailure(input, action.type, failure);
      return { object: current.object, failure };
    }
    if (current.object === undefined) break;
  }
  return { object: current.object, failure: undefined };
}

/** The object as last written: every write moves its resourceVersion on. */
interface Current {
  object: KubeObject | undefined;
}

async function actOnce(input: OrderActInput, current: Current, action: OrderAction): Promise<void> {
  const { deps, memory, observed } = input;
  const object = current.object ?? input.object;
  const event = (reason: string, requestId: string | undefined, note: string) => {
    if (requestId !== undefined) observed.requestId = requestId;
    deps.recorder.record(input.object, "Normal", reason, quoteRequest(requestId, note), action.type);
  };
  switch (action.type) {
    case "addFinalizer":
      current.object = await ensureFinalizer(deps.kube, serverOrderType, object, finalizer);
      return;
    case "removeFinalizer":
      if (action.warning !== undefined)
        deps.recorder.record(input.object, "Warning", OrderReason.OrderUncertain, action.warning);
      await removeFinalizer(deps.kube, serverOrderType, object, finalizer);
      current.object = undefined;
      return;
    case "estimate": {
      const answer = await client(input).estimateServers(action.input, {
        idempotencyKey: action.idempotencyKey,
      });
      const { estimate } = answer;
      memory.estimate = { idempotencyKey: action.idempotencyKey, estimate };
      observed.estimate = memory.estimate;
      event(
        "Estimated",
        answer.$metadata.requestId,
        `the service estimates ${estimate.hourlyCost} ${estimate.currency} per hour for ${estimate.count} × ${estimate.instanceType} in ${estimate.zone}`,
      );
      return;
    }
    case "order": {
      // Status says an order call may be in flight before it is sent, so a crash during it is noticed.
      current.object = (await patchStatus(deps.kube, serverOrderType, object, action.marker)).object;
      // No blind repeat after an uncertain failure: the next reconcile looks for the order first.
      const order = await client(input).orderServers(action.input, { idempotencyKey: action.idempotencyKey });
      remember(input, order);
      const { count, instanceType, zone } = action.input;
      event(
        "Ordered",
        order.$metadata.requestId,
        `placed order ${order.id}: ${count} × ${instanceType} in ${zone}`,
      );
      current.object = await recordOrder(input, current.object, order);
      return;
    }
    case "adopt":
      remember(input, action.order);
      event(
        "Adopted",
        undefined,
        `adopted order ${action.order.id}, placed by an earlier call whose answer was lost`,
      );
      current.object = await recordOrder(input, object, action.order);
      return;
    case "deprovision": {
      for (let i = 0; i < action.addresses.length; i += deprovisionBatch) {
        const addresses = action.addresses.slice(i, i + deprovisionBatch);
        const accepted = await client(input).deprovisionServers({ addresses, confirm: true });
        // A 202 promises no body: the servers' states show at the next listing.
        const asked = new Set(addresses);
        memory.servers = memory.servers?.map((s) =>
          asked.has(s.address) ? { ...s, state: "deprovisioning" } : s,
        );
        observed.servers = memory.servers;
        event(
          "Deprovisioning",
          accepted.requestId,
          `deprovisioning ${addresses.length} server(s) of order ${action.orderId}, as this ServerOrder was deleted`,
        );
      }
      return;
    }
    case "growOrder":
    case "adoptGrowth":
    case "shrink":
    case "power":
      current.object = await actOnCount(input, object, action, event);
      return;
    case "replace":
    case "refuseReplace":
      current.object = await actOnReplace(input, object, action);
      return;
  }
}

function client(input: OrderActInput): HostingClient {
  const connection = input.connection;
  if (connection === undefined) throw new TypeError("calling the service needs a connection");
  return connection.client;
}

/** The order this ServerOrder now follows, known from an answer rather than a read. */
function remember(input: OrderActInput, order: Order): void {
  const { deps, memory, observed } = input;
  memory.order = order;
  memory.gone = false;
  memory.servers = undefined;
  // A settled order's servers are listed next, without waiting for the drift check (nor for this
  // write's own watch event, which is no news).
  memory.orderDueAt = deps.now() + (orderSettled(order) ? 0 : nextReadMs(deps, order, input.polls));
  memory.readGeneration = input.serverOrder.metadata.generation ?? 0;
  Object.assign(observed, { order, gone: false, servers: undefined });
}

/** Writes the order's ID at once: from here on the ServerOrder never orders again. */
async function recordOrder(input: OrderActInput, object: KubeObject, order: Order): Promise<KubeObject> {
  const status = {
    ...(object.status as Record<string, unknown> | undefined),
    orderId: order.id,
    phase: phaseOf(order),
  };
  return (await patchStatus(input.deps.kube, serverOrderType, object, status)).object;
}
