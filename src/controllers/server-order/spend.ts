import type { ServerOrder } from "../../api/server-order.ts";
import { formatMicros, toMicros } from "../service/spend.ts";
import type { SpendAsk } from "../service/spend-ledger.ts";
import type { OrderAction } from "./actions.ts";
import type { OrderKnowledge } from "./memory.ts";

/**
 * What an action makes the ServerOrder cost per hour, for the namespace's SpendLimit: an order or
 * a growth order at the fresh estimate made for it (for all the servers); a replacement adds its
 * server's price while both run; a wake adds the full price of the servers it wakes. Pure.
 */
export function orderSpend(
  action: OrderAction,
  serverOrder: ServerOrder,
  knowledge: OrderKnowledge,
): SpendAsk | undefined {
  switch (action.type) {
    case "order":
      return { priced: action.hourlyCost };
    case "growOrder":
      // The plan stalls a growth it cannot price; an unpriced one is never let through.
      return { priced: action.estimate?.hourlyCost ?? "unpriced" };
    case "replace":
      return withServers(serverOrder, knowledge, [action.address]);
    case "power":
      return action.action === "wake" ? withServers(serverOrder, knowledge, action.addresses) : undefined;
    default:
      return undefined;
  }
}

function withServers(
  serverOrder: ServerOrder,
  knowledge: OrderKnowledge,
  addresses: readonly string[],
): SpendAsk {
  const now = toMicros(serverOrder.status?.cost?.hourly?.amount ?? "0") ?? 0n;
  const prices = addresses.map((address) => {
    const price = knowledge.servers?.find((s) => s.address === address)?.hourlyCost;
    return price === undefined ? undefined : toMicros(price);
  });
  if (prices.some((p) => p === undefined)) return { priced: "unpriced" };
  return { priced: formatMicros(prices.reduce<bigint>((sum, p) => sum + (p ?? 0n), now)) };
}
