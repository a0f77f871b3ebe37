import { ready, reconciling } from "../../api/conditions.ts";
import type { ServerOrder } from "../../api/server-order.ts";
import type { Order } from "../../hosting/index.ts";
import { Reason } from "../service/reasons.ts";
import type { Plans } from "../skeleton/cleanup.ts";
import { noChange, quoteRequest } from "../skeleton/condition-changes.ts";
import { isSettled } from "../skeleton/schedule.ts";
import { unrevertable } from "../skeleton/unrevertable.ts";
import { planOrdering } from "./approval.ts";
import { withOrderCost } from "./cost.ts";
import { orderChanges, phaseOf, reasonOfCode } from "./desired.ts";
import { withFoldedOrders } from "./fold.ts";
import { heldCount, liveServers, planCount } from "./growth.ts";
import type { OrderKnowledge } from "./memory.ts";
import { planOrderCleanup } from "./plan-cleanup.ts";
import {
  blocked,
  generationOf,
  type OrderPlan,
  type OrderPlanInput,
  OrderReason,
  orderMarker,
  planEarlierAttempt,
  result,
} from "./plan-common.ts";
import { planPower } from "./power.ts";
import { planReplace } from "./replacement.ts";
import { reaskOrderIntent } from "./settle.ts";

/** How a ServerOrder is planned: being there, going away, and a status alone (the skeleton picks). */
export const orderPlans: Plans<ServerOrder, OrderKnowledge, OrderPlan> = {
  externalId: "orderId",
  owns: [
    "growthOrders",
    "folded",
    "growing",
    "removedCount",
    "removing",
    "lastHandledReplaceServer",
    "replacing",
    // Which annotation asked for a replacement is not kept there: 1,000 of them could pass 256 KiB.
    { field: "replacements", keep: ["address", "orderId", "at"] },
  ],
  reask: reaskOrderIntent,
  plan: (serverOrder, observed, now) =>
    withOrderCost(planServerOrder({ serverOrder, observed, now }), observed),
  planCleanup: (serverOrder, observed, now) =>
    withOrderCost(planOrderCleanup({ serverOrder, observed, now }), observed),
  report: (serverOrder, observed, change, now) =>
    withOrderCost(result({ serverOrder, observed, now }, [], change), observed),
};

/** The ServerOrder's next step while it is there (the skeleton handles deletion, suspend and problems). Pure. */
export function planServerOrder(input: OrderPlanInput): OrderPlan {
  const { serverOrder, observed } = input;
  // A recorded, adopted (spec.orderId) or answered order is the order: an older "ordering" marker
  // never leads to another.
  const orderId = serverOrder.status?.orderId ?? serverOrder.spec.orderId ?? observed.order?.id;
  if (orderId !== undefined) return planPlaced(input, orderId);
  const marker = observed.refused === undefined ? orderMarker(serverOrder.status) : undefined;
  if (marker !== undefined) {
    const earlier = planEarlierAttempt(input);
    if (earlier !== undefined) return earlier;
  }
  return planOrdering(input);
}

/** The order exists: follow it, report spec changes it can't take, and list its servers. */
function planPlaced(input: OrderPlanInput, orderId: string): OrderPlan {
  const { serverOrder, observed } = input;
  const generation = generationOf(serverOrder);
  const adopted = serverOrder.spec.orderId !== undefined;
  const order = observed.order?.id === orderId ? observed.order : undefined;
  if (order === undefined) {
    // A settled order not read yet after a restart (its first read is spread): status stands.
    if (!observed.gone && isSettled(serverOrder, generation)) return result(input, [], noChange());
    if (!observed.gone)
      return result(input, [], reconciling(Reason.Progressing, `reading order ${orderId}`, generation));
    const unknown = adopted
      ? `order ${orderId} (spec.orderId) does not exist at the service or its owner is not the key's user; ` +
        "check the ID, or delete this ServerOrder and create one without spec.orderId"
      : `order ${orderId} is not known to the service (or not to this key's user); check the credentials`;
    return blocked(input, {
      stalled: true,
      reason: Reason.ExternalNotFound,
      message: quoteRequest(observed.requestId, unknown),
    });
  }
  const gridIds = observed.grids.ok ? observed.grids.gridIds : undefined;
  const changes = orderChanges(serverOrder.spec, gridIds, order);
  if (order.state === "failed") {
    // A failed order delivered no servers: a changed spec may order again (never for an adopted one).
    if (changes.length > 0 && !adopted) return planOrdering(input);
    return failed(input, order);
  }
  const fields = {
    phase: phaseOf(order),
    ordered: {
      status: "True" as const,
      reason: Reason.Succeeded,
      message: `order ${order.id} was ${adopted ? "adopted (spec.orderId)" : "placed"}`,
    },
  };
  if (changes.length > 0) {
    const blocker = {
      stalled: true,
      reason: Reason.ImmutableAfterOrder,
      message: `${changes.map((c) => c.phrase).join("; ")}: these fields are fixed once ordered (only spec.count and spec.power change the servers); set the spec back, or create another ServerOrder`,
    };
    const change = unrevertable(
      serverOrder.spec,
      changes.map((c) => c.field),
      blocker,
      generation,
    );
    return result(input, [], change, fields);
  }
  return describeProgress(input, order, fields);
}

function failed(input: OrderPlanInput, order: Order): OrderPlan {
  const reason = reasonOfCode(order.error?.code ?? "order_failed");
  const again =
    input.serverOrder.spec.orderId === undefined
      ? "change the spec (e.g. spec.zone) to order again"
      : "it was adopted (spec.orderId), so berth orders nothing: create another ServerOrder without spec.orderId to order";
  const message = `order ${order.id} failed at the service: ${order.error?.message ?? "no reason given"}; ${again}`;
  return blocked(input, { stalled: true, reason, message }, [], {
    phase: phaseOf(order),
    ordered: { status: "False", reason, message },
  });
}

function describeProgress(
  input: OrderPlanInput,
  order: Order,
  fields: { phase: string; ordered: { status: "True"; reason: string; message: string } },
): OrderPlan {
  const generation = generationOf(input.serverOrder);
  const servers = input.observed.servers;
  const waiting = (message: string) =>
    result(input, [], reconciling(Reason.Progressing, message, generation), fields);
  if (order.state !== "completed") return waiting(`order ${order.id} is ${order.state}`);
  if (servers === undefined) return waiting(`listing the servers of order ${order.id}`);
  const provisioning = servers.filter((s) => s.state === "provisioning").length;
  if (provisioning > 0)
    return waiting(`${provisioning} server(s) of order ${order.id} are still provisioning`);
  const counted = planCount(input, order, fields);
  if (counted !== undefined) return withoutGoneRemovals(input, counted);
  const replaced = planReplace(input, fields);
  if (replaced !== undefined) return withoutGoneRemovals(input, replaced);
  const held = heldCount(input, order);
  const live = liveServers(input);
  if (live.length < held) {
    return blocked(
      input,
      {
        stalled: true,
        reason: OrderReason.ServersMissing,
        message:
          `the orders delivered ${held} server(s) but ${live.length} are listed now (removed or ` +
          "replaced at the service); berth does not order replacements: create another ServerOrder",
      },
      [],
      fields,
    );
  }
  const powered = planPower(input, fields);
  if (powered !== undefined) return withoutGoneRemovals(input, powered);
  const joined = order.gridIds.length === 0 ? "" : `, joined to grid ${order.gridIds.join(", ")}`;
  const hibernated =
    input.serverOrder.spec.power === "Hibernated"
      ? "; hibernated (each keeps its disk, whose storage is still charged)"
      : "";
  const status = input.serverOrder.status;
  const orders = 1 + (status?.growthOrders?.length ?? 0) + (status?.folded?.growthOrders ?? 0);
  const delivered = orders === 1 ? `order ${order.id} delivered` : `${orders} orders delivered`;
  const settled = result(
    input,
    [],
    ready(Reason.Succeeded, `${delivered} ${live.length} server(s)${joined}${hibernated}`, generation),
    fields,
  );
  return withFoldedOrders(input, withoutGoneRemovals(input, settled));
}

/** status.removing keeps only the servers still listed: the others are gone. */
function withoutGoneRemovals(input: OrderPlanInput, plan: OrderPlan): OrderPlan {
  const listed = input.observed.servers;
  const removing = plan.status.removing;
  if (listed === undefined || removing === undefined) return plan;
  const still = new Set(listed.map((s) => s.address));
  const kept = removing.filter((address) => still.has(address));
  if (kept.length === removing.length) return plan;
  const { removing: _, ...status } = plan.status;
  return { ...plan, status: kept.length === 0 ? status : { ...status, removing: kept } };
}
