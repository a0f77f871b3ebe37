import type { Intent } from "../../api/intents.ts";
import type { ServerOrder } from "../../api/server-order.ts";
import type { Order, ProvisionInput } from "../../hosting/index.ts";
import { inputOf, type Recorded, type Settlement } from "../skeleton/intents.ts";
import type { OrderAction, OrderFact } from "./actions.ts";
import { growServers, leaving } from "./growth.ts";
import type { OrderKnowledge } from "./memory.ts";
import { recordedOrder } from "./perform.ts";
import { recordedRemoval } from "./perform-count.ts";
import { replaceServer } from "./replacement.ts";

type Facts = (OrderFact | Recorded)[];

/**
 * How a ServerOrder's Pending intent ended, from what observe looked up on the intent's own input
 * (never the current spec, which may have changed since). Pure.
 */
export function settleOrderIntent(
  intent: Intent,
  knowledge: OrderKnowledge,
  serverOrder: ServerOrder,
  now: Date,
): Settlement<OrderFact> {
  switch (intent.operation) {
    case "orderServers":
      return byCandidates(intent, knowledge, (order) => [
        { type: "following", order, generation: serverOrder.metadata.generation ?? 0, dueAt: now.getTime() },
        recordedOrder(order),
      ]);
    case growServers:
      return byCandidates(intent, knowledge, (order) => [
        { type: "grown", order },
        { type: "due", at: now.getTime() },
        { type: "recorded", status: { growthOrders: withGrowth(serverOrder, order, intent) } },
      ]);
    case replaceServer:
      return settleReplace(intent, knowledge, serverOrder, now);
    case "shrinkServers":
      return bySeenServers(intent, knowledge, (addresses, servers) =>
        addresses.every((a) => servers.every((s) => s.address !== a || leaving.has(s.state)))
          ? [recordedRemoval(serverOrder.status, addresses)]
          : undefined,
      );
    case "powerServers":
      return bySeenServers(intent, knowledge, (addresses, servers) => {
        const action = inputOf<{ action: "hibernate" | "wake" }>(intent)?.action;
        const moved = action === "wake" ? wakeStates : hibernateStates;
        const acted = servers.some((s) => addresses.includes(s.address) && moved.has(s.state));
        return acted && action !== undefined
          ? [{ type: "powerSent", action, addresses, sentAt: Date.parse(intent.since) || now.getTime() }]
          : undefined;
      });
    default:
      return {
        outcome: "unsettled",
        message: "berth does not know this operation; check the service by hand",
      };
  }
}

const wakeStates = new Set(["waking", "running"]);
const hibernateStates = new Set(["hibernating", "hibernated"]);

/** An order call: its one unclaimed matching order since the call, none, or several (a person picks). */
function byCandidates(
  intent: Intent,
  knowledge: OrderKnowledge,
  facts: (order: Order) => Facts,
): Settlement<OrderFact> {
  const found = knowledge.lookups?.[intent.operation];
  if (found === undefined) return { outcome: "looking", note: "looking for the order it may have placed" };
  const [order] = found;
  if (found.length === 0 || order === undefined) {
    return { outcome: "notActed", note: "no order it could have placed was found" };
  }
  if (found.length > 1) {
    return {
      outcome: "unsettled",
      message:
        `its outcome is unknown and ${found.length} unclaimed orders could be its result (${found.map((o) => o.id).join(", ")}); ` +
        "berth will not order again: check them at the service and deprovision the servers you don't want, " +
        "then set deletionPolicy: Orphan and delete this ServerOrder (or recreate it)",
    };
  }
  return {
    outcome: "acted",
    facts: facts(order),
    note: `order ${order.id} is its result`,
    reason: "Adopted",
  };
}

/** A call on listed servers: settled by reading the servers back. */
function bySeenServers(
  intent: Intent,
  knowledge: OrderKnowledge,
  acted: (addresses: string[], servers: NonNullable<OrderKnowledge["servers"]>) => Facts | undefined,
): Settlement<OrderFact> {
  const addresses = inputOf<{ addresses: string[] }>(intent)?.addresses;
  if (!Array.isArray(addresses)) return { outcome: "unsettled", message: "its input names no servers" };
  if (knowledge.servers === undefined) return { outcome: "looking", note: "listing the servers" };
  const facts = acted(addresses, knowledge.servers);
  return facts === undefined
    ? { outcome: "notActed", note: `servers ${addresses.join(", ")} show no effect of it` }
    : { outcome: "acted", facts, note: `servers ${addresses.join(", ")} show it took effect` };
}

/**
 * A replace call: the one-server order it placed (since the call, unclaimed, same placement). The
 * old server still live and no such order: it did not act. Retired with no order found: a person looks.
 */
function settleReplace(
  intent: Intent,
  knowledge: OrderKnowledge,
  serverOrder: ServerOrder,
  now: Date,
): Settlement<OrderFact> {
  const input = inputOf<{ address: string; request: string }>(intent);
  const address = input?.address;
  const found = knowledge.lookups?.[intent.operation];
  if (address === undefined) return { outcome: "unsettled", message: "its input names no server" };
  if (found === undefined || knowledge.servers === undefined) {
    return { outcome: "looking", note: `looking for the order replacing ${address}` };
  }
  const [order] = found;
  if (found.length === 1 && order !== undefined) {
    return {
      outcome: "acted",
      facts: replacementFacts(serverOrder, address, input?.request, order, now),
      note: `order ${order.id} replaces server ${address}`,
    };
  }
  const old = knowledge.servers.find((s) => s.address === address);
  if (found.length === 0 && old !== undefined && !leaving.has(old.state)) {
    return {
      outcome: "notActed",
      note: `server ${address} is still ${old.state} and no replacement order exists`,
    };
  }
  const which =
    found.length === 0
      ? "no replacement order was found"
      : `orders ${found.map((o) => o.id).join(", ")} could be it`;
  return {
    outcome: "unsettled",
    message:
      `server ${address} is ${old?.state ?? "gone"} and ${which}: check the orders at the service; ` +
      "a replacement server berth does not know is not deprovisioned with this ServerOrder",
  };
}

function replacementFacts(
  serverOrder: ServerOrder,
  address: string,
  request: string | undefined,
  order: Order,
  now: Date,
): Facts {
  const recorded = serverOrder.status?.replacements ?? [];
  const entry = {
    address,
    orderId: order.id,
    ...(request === undefined ? {} : { request }),
    at: now.toISOString(),
  };
  const replacements = recorded.some((r) => r.orderId === order.id) ? recorded : [...recorded, entry];
  return [
    { type: "passing", addresses: [address], state: "retiring" },
    { type: "replacement", order },
    { type: "due", at: now.getTime() },
    {
      type: "recorded",
      status: { replacements, ...(request === undefined ? {} : { lastHandledReplaceServer: request }) },
    },
  ];
}

function withGrowth(serverOrder: ServerOrder, order: Order, intent: Intent) {
  const recorded = serverOrder.status?.growthOrders ?? [];
  if (recorded.some((o) => o.id === order.id)) return recorded;
  const count =
    inputOf<{ request: { count: number } }>(intent)?.request?.count ?? order.count ?? order.servers.length;
  return [...recorded, { id: order.id, count, generation: serverOrder.metadata.generation ?? 0 }];
}

/**
 * An order call sent again, identical (its key and the input it recorded), so the service's answer
 * settles it (see `cleanup.ts`): the first order, a growth order, a replacement. Calls on listed servers (shrink, power) are settled by reading the servers. Pure.
 */
export function reaskOrderIntent(intent: Intent): OrderAction | undefined {
  const call = { operation: intent.operation, attempt: intent.attempt, key: intent.key };
  switch (intent.operation) {
    case "orderServers":
    case growServers: {
      const input = inputOf<{ request: ProvisionInput; step: { target: number } }>(intent);
      const request = input?.request;
      if (input === undefined || typeof request !== "object" || request === null) return undefined;
      const intentCall = { ...call, input };
      if (intent.operation === growServers) {
        const target = input.step?.target ?? request.count;
        return { type: "growOrder", input: request, intent: intentCall, target };
      }
      // Sent again under its key, it is never priced again (see `round.ts`): it keeps its first room.
      return { type: "order", input: request, intent: intentCall, hourlyCost: intent.room ?? "" };
    }
    case replaceServer: {
      const input = inputOf<{ address: string; request: string }>(intent);
      if (typeof input?.address !== "string") return undefined;
      const request = typeof input.request === "string" ? input.request : undefined;
      const intentCall = { ...call, input };
      return { type: "replace", address: input.address, request, state: "", again: true, intent: intentCall };
    }
    default:
      return undefined;
  }
}
