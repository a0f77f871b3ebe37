import type { Order, ProvisionInput } from "../../hosting/index.ts";
import { sameRequest } from "./desired.ts";

/** The service's clock and the cluster's may differ a little. */
export const clockSlackMs = 2 * 60_000;

export interface EarlierAttempt {
  /** When the order call whose outcome is unknown was about to be sent (cluster clock). */
  since: Date;
  /** Orders other ServerOrders (and this one's previous, failed order) hold: never taken. */
  claimed: ReadonlySet<string>;
  /** What that call asked for: an order is its result only if it matches exactly (never widened). */
  input: ProvisionInput;
}

/**
 * Orders an order call with an unknown outcome may have placed: made since the call (within the
 * clock slack), claimed by no ServerOrder, and matching the request when it is known. Pure.
 */
export function ordersFromEarlierAttempt(orders: readonly Order[], attempt: EarlierAttempt): Order[] {
  const since = attempt.since.getTime() - clockSlackMs;
  return orders.filter(
    (order) =>
      !attempt.claimed.has(order.id) &&
      // Without a creation time (not promised) an order can't be ruled out by age.
      !(Date.parse(order.createdAt ?? "") < since) &&
      sameRequest(order, attempt.input),
  );
}

/**
 * Orders a replace call with an unknown outcome may have placed: one server, made since the call,
 * claimed by no ServerOrder, in the replaced server's placement (its grids are the service's to carry over).
 */
export function replacementsFromEarlierAttempt(
  orders: readonly Order[],
  attempt: Omit<EarlierAttempt, "input"> & { placement: Omit<ProvisionInput, "count" | "gridIds"> },
): Order[] {
  const since = attempt.since.getTime() - clockSlackMs;
  const { csp, region, zone, instanceType } = attempt.placement;
  return orders.filter(
    (order) =>
      !attempt.claimed.has(order.id) &&
      !(Date.parse(order.createdAt ?? "") < since) &&
      (order.count ?? order.servers.length) === 1 &&
      order.csp === csp &&
      order.region === region &&
      order.zone === zone &&
      order.instanceType === instanceType,
  );
}
