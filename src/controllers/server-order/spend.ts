import type { ServerOrder } from "../../api/server-order.ts";
import { formatMicros, toMicros } from "../service/spend.ts";
import type { SpendAsk } from "../service/spend-ledger.ts";
import type { OrderAction } from "./actions.ts";
import type { OrderKnowledge } from "./memory.ts";

/**
 * What an action makes the ServerOrder cost per hour, for the namespace's SpendLimit: an order or
 * a growth order at the fresh estimate made for it (for all the servers); a replacement adds its
 * server's price while both run; a wake adds the full price of the servers it wakes. Without an
 * estimate or a server's price the call is unpriced (refused under a SpendLimit, saying so). A
 * call sent again under its recorded key is not asked about at all (see `round.ts`). Pure.
 */
export function orderSpend(
  action: OrderAction,
  serverOrder: ServerOrder,
  knowledge: OrderKnowledge,
): SpendAsk | undefined {
  switch (action.type) {
    case "order":
      return priced(action.hourlyCost, "the order has no fresh estimate from the service");
    case "growOrder":
      return priced(action.estimate?.hourlyCost, "the growth order has no fresh estimate from the service");
    case "replace":
      return withServers(serverOrder, knowledge, [action.address]);
    case "power":
      return action.action === "wake" ? withServers(serverOrder, knowledge, action.addresses) : undefined;
    default:
      return undefined;
  }
}

function priced(amount: string | undefined, why: string): SpendAsk {
  return amount !== undefined && toMicros(amount) !== undefined ? { priced: amount } : { unpriced: why };
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
  if (prices.some((p) => p === undefined)) {
    return { unpriced: `the service states no price for server ${addresses.join(", ")}` };
  }
  return { priced: formatMicros(prices.reduce<bigint>((sum, p) => sum + (p ?? 0n), now)) };
}
