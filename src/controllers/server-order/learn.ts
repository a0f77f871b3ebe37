import { HostingApiError } from "../../hosting/index.ts";
import type { Failed } from "../skeleton/kind.ts";
import type { OrderAction, OrderFact } from "./actions.ts";
import { orderSettled } from "./desired.ts";
import type { OrderKnowledge } from "./memory.ts";

/** The knowledge after a fact. Pure. */
export function learnOrder(knowledge: OrderKnowledge, fact: OrderFact | Failed<OrderAction>): OrderKnowledge {
  switch (fact.type) {
    case "estimated":
      return { ...knowledge, estimate: fact.estimate };
    case "following":
      return {
        ...knowledge,
        order: fact.order,
        gone: false,
        servers: undefined,
        orderDueAt: fact.dueAt,
        readGeneration: fact.generation,
      };
    case "passing": {
      const asked = new Set(fact.addresses);
      const servers = knowledge.servers?.map((s) => (asked.has(s.address) ? { ...s, state: fact.state } : s));
      return { ...knowledge, servers };
    }
    case "grown":
      return {
        ...knowledge,
        growthOrders: [...knowledge.growthOrders.filter((o) => o.id !== fact.order.id), fact.order],
        growthCandidates: undefined,
        // A settled growth order (adopted late) has servers the listing does not hold yet: list again.
        ...(orderSettled(fact.order) ? { servers: undefined } : {}),
      };
    case "replacement":
      return {
        ...knowledge,
        replacementOrders: [...knowledge.replacementOrders.filter((o) => o.id !== fact.order.id), fact.order],
        // A settled replacement order (found late) has a server the listing does not hold yet: list again.
        ...(orderSettled(fact.order) ? { servers: undefined } : {}),
      };
    case "powerSent": {
      const previous = knowledge.power?.action === fact.action ? knowledge.power : undefined;
      const power = {
        action: fact.action,
        addresses: fact.addresses,
        sentAt: fact.sentAt,
        failures: previous?.failures ?? 0,
        retryAt: undefined,
      };
      return { ...knowledge, power };
    }
    case "due":
      return { ...knowledge, orderDueAt: Math.min(knowledge.orderDueAt ?? fact.at, fact.at) };
    case "failed":
      return learnFailure(knowledge, fact);
  }
}

/**
 * Only the service's own refusal of an order is sure to have placed nothing (a 2xx it answered in
 * an unexpected shape is not): the next attempt is then a new order call with a new key.
 */
function learnFailure(
  knowledge: OrderKnowledge,
  { action, failure, error }: Failed<OrderAction>,
): OrderKnowledge {
  const definite = error instanceof HostingApiError && error.kind === "terminal";
  if (definite && (action.type === "order" || action.type === "growOrder"))
    return { ...knowledge, refused: failure };
  if (definite && action.type === "replace") return { ...knowledge, replaceRefused: failure };
  return knowledge;
}
