import { ConditionType, getCondition, reconciling, timestamp } from "../../api/conditions.ts";
import { type Estimate, idempotencyKey } from "../../hosting/index.ts";
import { Reason } from "../service/reasons.ts";
import { intentCall } from "../skeleton/intents.ts";
import type { OrderAction } from "./actions.ts";
import { catalogProblems } from "./catalog.ts";
import { compareDecimal, desiredInput } from "./desired.ts";
import {
  blocked,
  generationOf,
  keyLacks,
  type OrderPlan,
  type OrderPlanInput,
  orderingPhase,
  orderScopes,
  result,
} from "./plan-common.ts";

type KnownEstimate = Estimate["estimate"];

/** Not approved: show the estimate and wait for spec.approved. */
function awaitingApproval(input: OrderPlanInput, known: KnownEstimate): OrderPlan {
  const generation = generationOf(input.serverOrder);
  const quoted = `${known.hourlyCost} ${known.currency} per hour for ${known.count} × ${known.instanceType} in ${known.zone}`;
  const message = `the service estimates ${quoted}; set spec.approved: true to place the order`;
  return result(
    input,
    [],
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

/**
 * No order (or only a failed one) yet: check the spec and the catalog, get an estimate, wait for
 * spec.approved, estimate again for this attempt, check it against spec.maxHourlyCost, and order.
 */
export function planOrdering(input: OrderPlanInput): OrderPlan {
  const { serverOrder, observed, now } = input;
  const { spec } = serverOrder;
  const generation = generationOf(serverOrder);
  const missing = keyLacks(input, "create", orderScopes, "estimate and place the order");
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
  const estimateAction = (key: string): OrderAction[] => [
    { type: "estimate", input: orderInput, idempotencyKey: key, prepares: "create" },
  ];
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
  plan.actions = [{ type: "order", input: orderInput, intent, hourlyCost: fresh.hourlyCost }];
  return plan;
}
