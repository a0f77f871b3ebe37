import { ConditionType, getCondition, ready, reconciling, timestamp } from "../../api/conditions.ts";
import { type Estimate, idempotencyKey, type Order } from "../../hosting/index.ts";
import { noChange, quoteRequest, suspended } from "../shared/condition-changes.ts";
import { intentCall } from "../shared/intents.ts";
import { Reason } from "../shared/reasons.ts";
import { isSettled } from "../shared/schedule.ts";
import { scopeProblem } from "../shared/scopes.ts";
import { catalogProblems } from "./catalog.ts";
import { compareDecimal, desiredInput, orderChanges, phaseOf, reasonOfCode } from "./desired.ts";
import { heldCount, liveServers, planCount } from "./growth.ts";
import { planDeletion } from "./plan-cleanup.ts";
import {
  blocked,
  generationOf,
  type OrderPlan,
  type OrderPlanInput,
  OrderReason,
  orderingPhase,
  orderMarker,
  orderScopes,
  planEarlierAttempt,
  result,
  withFinalizer,
} from "./plan-common.ts";
import { planPower } from "./power.ts";
import { planReplace } from "./replacement.ts";

type KnownEstimate = Estimate["estimate"];

/** The ServerOrder's next step. Pure: no I/O, no clock. */
export function planServerOrder(input: OrderPlanInput): OrderPlan {
  const { serverOrder, observed } = input;
  if (serverOrder.metadata.deletionTimestamp !== undefined) return planDeletion(input);
  if (serverOrder.spec.suspend) return result(input, [], suspended(generationOf(serverOrder)));
  if (observed.problem !== undefined) return blocked(input, observed.problem);
  // A recorded or answered order is the order: an older "ordering" marker never leads to another.
  const orderId = serverOrder.status?.orderId ?? observed.order?.id;
  if (orderId !== undefined) return planPlaced(input, orderId);
  const marker = observed.refused === undefined ? orderMarker(serverOrder.status) : undefined;
  if (marker !== undefined) {
    const earlier = planEarlierAttempt(input);
    if (earlier !== undefined) return earlier;
  }
  return planOrdering(input);
}

/** Not approved: show the estimate and wait for spec.approved. */
function awaitingApproval(input: OrderPlanInput, known: KnownEstimate): OrderPlan {
  const generation = generationOf(input.serverOrder);
  const quoted = `${known.hourlyCost} ${known.currency} per hour for ${known.count} × ${known.instanceType} in ${known.zone}`;
  const message = `the service estimates ${quoted}; set spec.approved: true to place the order`;
  return result(
    input,
    withFinalizer(input, []),
    {
      set: [
        {
          type: ConditionType.Ready,
          status: "False",
          reason: Reason.AwaitingApproval,
          message,
          observedGeneration: generation,
        },
      ],
      remove: [ConditionType.Reconciling, ConditionType.Stalled],
    },
    {
      estimate: { hourlyCost: known.hourlyCost, currency: known.currency },
      phase: "Estimated",
      ordered: { status: "False", reason: Reason.AwaitingApproval, message },
    },
  );
}

/** No order (or only a failed one) yet: check the spec, get an estimate, and order once approved. */
function planOrdering(input: OrderPlanInput): OrderPlan {
  const { serverOrder, observed, now } = input;
  const { spec } = serverOrder;
  const generation = generationOf(serverOrder);
  const missing = observed.me && scopeProblem(observed.me, orderScopes, "estimate and place the order");
  if (missing !== undefined) return blocked(input, missing);
  if (!observed.grids.ok) return blocked(input, observed.grids.problem);
  if (observed.catalog === undefined) {
    return result(input, [], reconciling(Reason.Progressing, "reading the service's catalog", generation));
  }
  const problems = catalogProblems(spec, observed.catalog);
  if (problems.length > 0) {
    return blocked(input, {
      stalled: true,
      reason: Reason.InvalidSpec,
      message: `the spec does not match the service's catalog: ${problems.join("; ")}`,
    });
  }
  const orderInput = desiredInput(spec, observed.grids.gridIds);
  // A new order after a failed one gets new keys: the old ones would replay the failed order.
  const replaces = serverOrder.status?.orderId;
  const uid = serverOrder.metadata.uid ?? serverOrder.metadata.name;
  const estimateOf = (key: string) =>
    observed.estimate?.idempotencyKey === key ? observed.estimate.estimate : undefined;
  const estimateAction = (key: string) =>
    withFinalizer(input, [{ type: "estimate", input: orderInput, idempotencyKey: key }]);
  if (!spec.approved) {
    const estimateKey = idempotencyKey(uid, "estimateServers", { ...orderInput, replaces });
    const known = estimateOf(estimateKey);
    if (known === undefined) {
      return result(
        input,
        estimateAction(estimateKey),
        reconciling(Reason.Progressing, "asking the service for an estimate (dry run)", generation),
      );
    }
    return awaitingApproval(input, known);
  }
  // Approved: the order is checked against an estimate made for this very attempt, never one the
  // service replays from days ago. The Ordered condition's time marks the attempt (see below).
  const ordering = (message: string, estimate?: KnownEstimate) =>
    result(input, [], reconciling(Reason.Progressing, message, generation), {
      ...(estimate === undefined
        ? {}
        : { estimate: { hourlyCost: estimate.hourlyCost, currency: estimate.currency } }),
      // Only the order step's status says an order call may be in flight (phase Ordering, the marker).
      phase: estimate === undefined ? "Estimated" : orderingPhase,
      ordered: { status: "Unknown", reason: Reason.Progressing, message },
    });
  const pending = ordering("estimating again right before the order (dry run)");
  // The marker's time tells this attempt's keys apart from earlier, refused ones; a retry after a crash keeps it.
  const attempt =
    getCondition(pending.status.conditions, ConditionType.Ordered)?.lastTransitionTime ?? timestamp(now);
  const freshKey = idempotencyKey(uid, "estimateServers", { ...orderInput, replaces, attempt });
  const fresh = estimateOf(freshKey);
  if (fresh === undefined) return { ...pending, actions: estimateAction(freshKey) };
  const estimate = { hourlyCost: fresh.hourlyCost, currency: fresh.currency };
  const quoted = `${fresh.hourlyCost} ${fresh.currency} per hour for ${fresh.count} × ${fresh.instanceType} in ${fresh.zone}`;
  const notOrdered = (reason: string, message: string) => ({
    estimate,
    phase: "Estimated",
    ordered: { status: "False" as const, reason, message },
  });
  const stop = (reason: Reason, message: string) =>
    blocked(input, { stalled: true, reason, message }, [], notOrdered(reason, message));
  const approvedCurrency = serverOrder.status?.estimate?.currency;
  if (approvedCurrency !== undefined && approvedCurrency !== fresh.currency) {
    return stop(
      Reason.OverBudget,
      `the estimate is now in ${fresh.currency} (${quoted}) but was ${approvedCurrency} when shown; no order was placed: check spec.maxHourlyCost, then change the spec or approve again`,
    );
  }
  const limit = spec.maxHourlyCost;
  const comparison = limit === undefined ? undefined : compareDecimal(fresh.hourlyCost, limit);
  if (limit === undefined || comparison === undefined) {
    return stop(
      Reason.InvalidSpec,
      `cannot compare the estimate (${quoted}) with spec.maxHourlyCost ${limit ?? "(unset)"}; set spec.maxHourlyCost to a decimal such as "2.50"`,
    );
  }
  if (comparison > 0) {
    return stop(
      Reason.OverBudget,
      `the estimate, ${quoted}, is above spec.maxHourlyCost ${limit}; no order was placed: raise the limit or order less`,
    );
  }
  const refused = observed.refused;
  if (refused !== undefined) {
    return blocked(input, refused, [], {
      estimate,
      phase: "Failed",
      ordered: { status: "False", reason: refused.reason, message: refused.message },
    });
  }
  const plan = ordering(`placing the order: ${quoted}`, fresh);
  const intent = intentCall(serverOrder, "orderServers", {
    request: orderInput,
    ...(replaces === undefined ? {} : { replaces }),
  });
  plan.actions = withFinalizer(input, [{ type: "order", input: orderInput, intent }]);
  return plan;
}

/** The order exists: follow it, report spec changes it can't take, and list its servers. */
function planPlaced(input: OrderPlanInput, orderId: string): OrderPlan {
  const { serverOrder, observed } = input;
  const generation = generationOf(serverOrder);
  const order = observed.order?.id === orderId ? observed.order : undefined;
  if (order === undefined) {
    // A settled order not read yet after a restart (its first read is spread): status stands.
    if (!observed.gone && isSettled(serverOrder, generation)) return result(input, [], noChange());
    if (!observed.gone)
      return result(input, [], reconciling(Reason.Progressing, `reading order ${orderId}`, generation));
    return blocked(input, {
      stalled: true,
      reason: Reason.ExternalNotFound,
      message: quoteRequest(
        observed.requestId,
        `order ${orderId} is not known to the service (or not to this key's user); check the credentials`,
      ),
    });
  }
  const gridIds = observed.grids.ok ? observed.grids.gridIds : undefined;
  const changes = orderChanges(serverOrder.spec, gridIds, order);
  if (order.state === "failed") {
    // A failed order delivered no servers: a changed spec may order again.
    if (changes.length > 0) return planOrdering(input);
    return failed(input, order);
  }
  const fields = {
    phase: phaseOf(order),
    ordered: { status: "True" as const, reason: Reason.Succeeded, message: `order ${order.id} was placed` },
  };
  if (changes.length > 0) {
    return blocked(
      input,
      {
        stalled: true,
        reason: Reason.ImmutableAfterOrder,
        message: `${changes.join("; ")}: these fields are fixed once ordered (only spec.count and spec.power change the servers); set the spec back, or create another ServerOrder`,
      },
      [],
      fields,
    );
  }
  return describeProgress(input, order, fields);
}

function failed(input: OrderPlanInput, order: Order): OrderPlan {
  const reason = reasonOfCode(order.error?.code ?? "order_failed");
  const message =
    `order ${order.id} failed at the service: ${order.error?.message ?? "no reason given"}; ` +
    "change the spec (e.g. spec.zone) to order again";
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
    result(input, withFinalizer(input, []), reconciling(Reason.Progressing, message, generation), fields);
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
  const orders = 1 + (input.serverOrder.status?.growthOrders?.length ?? 0);
  const delivered = orders === 1 ? `order ${order.id} delivered` : `${orders} orders delivered`;
  return withoutGoneRemovals(
    input,
    result(
      input,
      withFinalizer(input, []),
      ready(Reason.Succeeded, `${delivered} ${live.length} server(s)${joined}${hibernated}`, generation),
      fields,
    ),
  );
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
