import type { ServerOrderStatus } from "../../api/server-order.ts";
import { HostingApiError, type HostingClient, type Order } from "../../hosting/index.ts";
import { type KubeObject, patchStatus } from "../../runtime/index.ts";
import type { OrderActInput } from "./act.ts";
import { orderSettled } from "./desired.ts";
import { serverOrderType } from "./kind.ts";
import { nextReadMs } from "./observe.ts";
import type { OrderAction } from "./plan-common.ts";

type CountAction = Extract<OrderAction, { type: "growOrder" | "adoptGrowth" | "shrink" | "power" }>;
type Event = (reason: string, requestId: string | undefined, note: string) => void;

/** The service takes at most this many addresses per power or deprovision request. */
const batch = 50;

const passingState = { hibernate: "hibernating", wake: "waking" } as const;

/** Growth orders, shrinking and power: each writes status before or right after its call. */
export async function actOnCount(
  input: OrderActInput,
  object: KubeObject,
  action: CountAction,
  event: Event,
): Promise<KubeObject> {
  switch (action.type) {
    case "growOrder":
      return growOrder(input, object, action, event);
    case "adoptGrowth":
      event(
        "Adopted",
        undefined,
        `adopted growth order ${action.order.id}, placed by a call whose answer was lost`,
      );
      return recordGrowth(input, object, action.order);
    case "shrink":
      return shrink(input, object, action, event);
    case "power":
      await power(input, action, event);
      return object;
  }
}

async function growOrder(
  input: OrderActInput,
  object: KubeObject,
  action: Extract<OrderAction, { type: "growOrder" }>,
  event: Event,
): Promise<KubeObject> {
  // Status says a growth call may be in flight before it is sent, so a crash during it is noticed.
  const marked = (
    await patchStatus(input.deps.kube, serverOrderType, object, {
      ...statusOf(object),
      growing: action.marker,
      ...(action.estimate === undefined ? {} : { estimate: action.estimate }),
    })
  ).object;
  let order: Awaited<ReturnType<HostingClient["orderServers"]>>;
  try {
    order = await client(input).orderServers(action.input, { idempotencyKey: action.idempotencyKey });
  } catch (error) {
    // The service's own refusal placed nothing: the marker goes, so the next attempt is a plain one.
    if (error instanceof HostingApiError && error.kind === "terminal") {
      const { growing: _, ...status } = statusOf(marked);
      await patchStatus(input.deps.kube, serverOrderType, marked, status);
    }
    throw error;
  }
  event(
    "Ordered",
    order.$metadata.requestId,
    `placed growth order ${order.id}: ${action.input.count} more × ${action.input.instanceType} (spec.count ${action.marker.target})`,
  );
  return recordGrowth(input, marked, order);
}

/** Records the growth order and clears the marker in one write: from here on it is never ordered again. */
async function recordGrowth(input: OrderActInput, object: KubeObject, order: Order): Promise<KubeObject> {
  const { deps, memory, observed } = input;
  const { growing, ...status } = statusOf(object);
  const count = growing?.count ?? order.count ?? order.servers.length;
  const entry = { id: order.id, count, generation: input.serverOrder.metadata.generation ?? 0 };
  const recorded = status.growthOrders ?? [];
  const growthOrders = recorded.some((o) => o.id === order.id) ? recorded : [...recorded, entry];
  memory.growthOrders = [...memory.growthOrders.filter((o) => o.id !== order.id), order];
  observed.growthOrders = memory.growthOrders;
  observed.growthCandidates = undefined;
  if (!orderSettled(order)) {
    const due = deps.now() + nextReadMs(deps, order, input.polls);
    memory.orderDueAt = Math.min(memory.orderDueAt ?? due, due);
  }
  return (await patchStatus(deps.kube, serverOrderType, object, { ...status, growthOrders })).object;
}

async function shrink(
  input: OrderActInput,
  object: KubeObject,
  action: Extract<OrderAction, { type: "shrink" }>,
  event: Event,
): Promise<KubeObject> {
  const { deps, memory, observed } = input;
  let current = object;
  if (!action.alreadyRecorded) {
    // Recorded before the call: after a crash the same servers are deprovisioned, never others.
    const status = statusOf(object);
    const removing = [...new Set([...(status.removing ?? []), ...action.addresses])];
    const removedCount = (status.removedCount ?? 0) + action.addresses.length;
    current = (await patchStatus(deps.kube, serverOrderType, object, { ...status, removing, removedCount }))
      .object;
  }
  for (let i = 0; i < action.addresses.length; i += batch) {
    const addresses = action.addresses.slice(i, i + batch);
    const accepted = await client(input).deprovisionServers({ addresses, confirm: true });
    const asked = new Set(addresses);
    memory.servers = memory.servers?.map((s) =>
      asked.has(s.address) ? { ...s, state: "deprovisioning" } : s,
    );
    observed.servers = memory.servers;
    event(
      "Deprovisioning",
      accepted.requestId,
      `deprovisioning ${addresses.join(", ")}, as spec.count was lowered`,
    );
  }
  memory.orderDueAt = Math.min(
    memory.orderDueAt ?? Number.POSITIVE_INFINITY,
    deps.now() + input.polls.deprovisionMs,
  );
  return current;
}

/** One call per change; the servers are read back after `powerMs` to see whether it was acted on. */
async function power(
  input: OrderActInput,
  action: Extract<OrderAction, { type: "power" }>,
  event: Event,
): Promise<void> {
  const { deps, memory, observed } = input;
  const previous = memory.power?.action === action.action ? memory.power : undefined;
  for (let i = 0; i < action.addresses.length; i += batch) {
    const addresses = action.addresses.slice(i, i + batch);
    const accepted = await client(input).powerServers({ addresses, action: action.action });
    const asked = new Set(addresses);
    const via = passingState[action.action];
    memory.servers = memory.servers?.map((s) => (asked.has(s.address) ? { ...s, state: via } : s));
    observed.servers = memory.servers;
    event(
      action.action === "wake" ? "Waking" : "Hibernating",
      accepted.requestId,
      `${action.action === "wake" ? "waking" : "hibernating"} ${addresses.length} server(s)`,
    );
  }
  memory.power = {
    action: action.action,
    addresses: action.addresses,
    sentAt: deps.now(),
    failures: previous?.failures ?? 0,
    retryAt: undefined,
  };
  observed.power = memory.power;
  memory.orderDueAt = Math.min(
    memory.orderDueAt ?? Number.POSITIVE_INFINITY,
    deps.now() + input.polls.powerMs,
  );
}

function statusOf(object: KubeObject): ServerOrderStatus {
  return (object.status ?? {}) as ServerOrderStatus;
}

function client(input: OrderActInput): HostingClient {
  const connection = input.connection;
  if (connection === undefined) throw new TypeError("calling the service needs a connection");
  return connection.client;
}
