import type { ServerOrderStatus } from "../../api/server-order.ts";
import type { Order } from "../../hosting/index.ts";
import type { IntentRef } from "../skeleton/held-intents.ts";
import { clockSlackMs } from "./inspection.ts";
import type { OrderPlan, OrderPlanInput } from "./plan-common.ts";

/** The service keeps an Idempotency-Key 24 hours; the clocks may differ by a little more. */
export const defaultFoldAfterMs = 25 * 3_600_000;

/**
 * The latest creation time of an order that no open call can take for its own: a lookup for a call
 * in doubt takes unclaimed orders made since the call (less the clock slack), so an order leaves
 * status only if made before the earliest open call of any ServerOrder, and `afterMs` ago. Pure.
 */
export function foldHorizon(now: number, afterMs: number, open: readonly IntentRef[]): number {
  const since = open
    .filter((intent) => intent.state === "Pending")
    .map((intent) => Date.parse(typeof intent.since === "string" ? intent.since : ""))
    .map((at) => (Number.isNaN(at) ? Number.NEGATIVE_INFINITY : at - clockSlackMs));
  return Math.min(now - afterMs, ...since);
}

/**
 * Of the recorded orders just listed with no server (settled ones only), those whose entries may be
 * folded out of status: made before `before` (see `foldHorizon`), and not a failed replacement (which
 * keeps counting the server it retired). An order without a creation time is kept, unless its
 * replacement entry says when it was accepted. Pure.
 */
export function foldableOrders(
  emptied: readonly Order[],
  replacements: NonNullable<ServerOrderStatus["replacements"]>,
  before: number,
): string[] {
  const accepted = new Map(replacements.map((r) => [r.orderId, r.at]));
  return emptied
    .filter((order) => !(accepted.has(order.id) && order.state === "failed"))
    .filter((order) => Date.parse(order.createdAt ?? accepted.get(order.id) ?? "") <= before)
    .map((order) => order.id);
}

/**
 * A settled ServerOrder's status without the entries of growth and replacement orders that observe
 * found foldable (settled over a day ago, no server of theirs listed), so status and the
 * berth.dev/owned annotation stay small however long the ServerOrder lives.
 * - A growth entry's count moves into status.folded, so the count held stays the same; the last
 *   growth entry stays (it tells whether the last growth failed).
 * - A replacement entry counts nothing once its order delivered: it goes.
 * Nothing is folded while a call's outcome is open. Pure.
 */
export function withFoldedOrders(input: OrderPlanInput, plan: OrderPlan): OrderPlan {
  const foldable = new Set(input.observed.foldable ?? []);
  const { status } = plan;
  const open =
    status.growing !== undefined ||
    status.replacing !== undefined ||
    (status.intents ?? []).some((intent) => intent.state === "Pending");
  if (foldable.size === 0 || open) return plan;
  const growth = status.growthOrders ?? [];
  const last = growth.at(-1);
  const foldedGrowth = growth.filter((entry) => entry !== last && foldable.has(entry.id));
  const replacements = status.replacements ?? [];
  const keptReplacements = replacements.filter((r) => r.orderId === undefined || !foldable.has(r.orderId));
  if (foldedGrowth.length === 0 && keptReplacements.length === replacements.length) return plan;
  const failed = new Set(
    (input.observed.growthOrders ?? []).filter((o) => o.state === "failed").map((o) => o.id),
  );
  const delivered = foldedGrowth.reduce((sum, entry) => sum + (failed.has(entry.id) ? 0 : entry.count), 0);
  const folded = {
    growthOrders: (status.folded?.growthOrders ?? 0) + foldedGrowth.length,
    servers: (status.folded?.servers ?? 0) + delivered,
  };
  const keptGrowth = growth.filter((entry) => !foldedGrowth.includes(entry));
  const { growthOrders: _g, replacements: _r, ...rest } = status;
  return {
    ...plan,
    status: {
      ...rest,
      ...(folded.growthOrders === 0 ? {} : { folded }),
      ...(keptGrowth.length === 0 ? {} : { growthOrders: keptGrowth }),
      ...(keptReplacements.length === 0 ? {} : { replacements: keptReplacements }),
    },
  };
}
