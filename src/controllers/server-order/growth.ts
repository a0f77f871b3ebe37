import { reconciling } from "../../api/conditions.ts";
import { idempotencyKey, type Order, type ProvisionInput, type Server } from "../../hosting/index.ts";
import { Reason } from "../service/reasons.ts";
import { intentCall } from "../skeleton/intents.ts";
import { compareDecimal, desiredInput, multiplyDecimal, orderSettled, reasonOfCode } from "./desired.ts";
import {
  blocked,
  generationOf,
  keyLacks,
  type OrderPlan,
  type OrderPlanInput,
  type OrderPoll,
  OrderReason,
  orderScopes,
  result,
  type StepFields,
} from "./plan-common.ts";

/** Server states from which a server is already on its way out. */
export const leaving = new Set(["deprovisioning", "retiring"]);

/** The servers the ServerOrder holds: listed, not leaving, and not being removed by a shrink. */
export function liveServers(input: OrderPlanInput): Server[] {
  const removing = new Set(input.serverOrder.status?.removing ?? []);
  return (input.observed.servers ?? []).filter((s) => !leaving.has(s.state) && !removing.has(s.address));
}

/**
 * How many servers the ServerOrder should have now: what its orders delivered (folded growth
 * orders too; a failed growth order delivered none), less those a lowered spec.count deprovisioned and those a failed
 * replacement order retired without a successor.
 */
export function heldCount(input: OrderPlanInput, first: Order): number {
  const status = input.serverOrder.status;
  const read = new Map((input.observed.growthOrders ?? []).map((o) => [o.id, o]));
  const grown = (status?.growthOrders ?? [])
    .map((entry) => (read.get(entry.id)?.state === "failed" ? 0 : entry.count))
    .reduce((sum, count) => sum + count, 0);
  // A replacement order that failed retired its server and delivered none.
  const lost = (input.observed.replacementOrders ?? []).filter((o) => o.state === "failed").length;
  const folded = status?.folded?.servers ?? 0;
  return (first.count ?? first.servers.length) + folded + grown - (status?.removedCount ?? 0) - lost;
}

/**
 * spec.count after the first order delivered: grow by ordering only the difference (dry run,
 * approval and maxHourlyCost as for the first order), shrink by deprovisioning the newest servers.
 * Undefined when the count is as asked and nothing is in flight.
 */
export function planCount(input: OrderPlanInput, first: Order, fields: StepFields): OrderPlan | undefined {
  const { serverOrder, observed } = input;
  const status = serverOrder.status;
  const generation = generationOf(serverOrder);
  const waiting = (message: string, poll?: OrderPoll) =>
    result(input, [], reconciling(Reason.Progressing, message, generation), { ...fields, poll });
  if (status?.growing !== undefined) return planGrowthAttempt(input, first, fields);
  const growthOrders = observed.growthOrders ?? [];
  const inFlight = growthOrders.find((o) => !orderSettled(o));
  if (inFlight !== undefined) {
    return waiting(`growth order ${inFlight.id} is ${inFlight.state}`);
  }
  const removing = new Set(status?.removing ?? []);
  const listed = observed.servers ?? [];
  const notLeft = listed.filter((s) => removing.has(s.address) && !leaving.has(s.state));
  if (notLeft.length > 0) return shrink(input, notLeft, true, fields);
  const held = heldCount(input, first);
  const target = serverOrder.spec.count;
  const lastGrowth = status?.growthOrders?.at(-1);
  const lastRead = growthOrders.find((o) => o.id === lastGrowth?.id);
  if (lastGrowth !== undefined && lastRead?.state === "failed" && lastGrowth.generation === generation) {
    const reason = reasonOfCode(lastRead.error?.code ?? "order_failed");
    const message =
      `growth order ${lastRead.id} failed at the service: ${lastRead.error?.message ?? "no reason given"}; ` +
      "change spec.count to try again";
    return blocked(input, { stalled: true, reason, message }, [], fields);
  }
  const live = liveServers(input);
  if (live.length < held) return undefined; // ServersMissing, reported by the caller
  if (target > held) return planGrowth(input, first, held, fields);
  if (target < held)
    return shrink(input, newestFirst(live, first, status).slice(0, held - target), false, fields);
  const leavingNow = listed.filter((s) => removing.has(s.address)).length;
  if (leavingNow > 0) {
    return waiting(`deprovisioning ${leavingNow} server(s), as spec.count was lowered`, "deprovisionMs");
  }
  return undefined;
}

/**
 * What a growth step orders, as the intent that records it: stable across crashes and retries; a
 * new step (after another growth or a shrink) or a refused attempt gets new keys. The dry run's
 * key follows the order's, so a refused order is estimated afresh.
 */
function growthRequest(input: OrderPlanInput, first: Order, target: number, count: number) {
  const { serverOrder } = input;
  const { request, step } = growthStep(input, first, target, count);
  const intent = intentCall(serverOrder, growServers, { request, step });
  const uid = serverOrder.metadata.uid ?? serverOrder.metadata.name;
  const estimateKey = idempotencyKey(uid, "estimateServers", {
    ...request,
    growth: step,
    attempt: intent.attempt,
  });
  return { request, estimateKey, intent };
}

/** The intent operation of a growth order. */
export const growServers = "growServers";

function planGrowth(input: OrderPlanInput, first: Order, held: number, fields: StepFields): OrderPlan {
  const { serverOrder, observed } = input;
  const { spec } = serverOrder;
  const generation = generationOf(serverOrder);
  const missing = keyLacks(input, "update", orderScopes, `order ${spec.count - held} more server(s)`);
  if (missing !== undefined) return blocked(input, missing, [], fields);
  if (!observed.grids.ok) return blocked(input, observed.grids.problem, [], fields);
  const more = spec.count - held;
  const { request, estimateKey, intent } = growthRequest(input, first, spec.count, more);
  const known = observed.estimate?.idempotencyKey === estimateKey ? observed.estimate.estimate : undefined;
  if (known === undefined) {
    return result(
      input,
      [{ type: "estimate", input: request, idempotencyKey: estimateKey, prepares: "update" }],
      reconciling(
        Reason.Progressing,
        `asking for an estimate of ${more} more server(s) (dry run)`,
        generation,
      ),
      fields,
    );
  }
  const total = multiplyDecimal(known.perServerHourlyCost, spec.count);
  const quoted =
    `${known.hourlyCost} ${known.currency} per hour for ${more} more × ${known.instanceType} ` +
    `(${total ?? "?"} ${known.currency} for all ${spec.count})`;
  const estimate = total === undefined ? {} : { estimate: { hourlyCost: total, currency: known.currency } };
  const stop = (reason: string, message: string) =>
    blocked(input, { stalled: true, reason, message }, [], { ...fields, ...estimate });
  if (!spec.approved) {
    const message = `spec.count grew to ${spec.count}: the service estimates ${quoted}; set spec.approved: true to order them`;
    return result(
      input,
      [],
      {
        set: [
          {
            type: "Ready",
            status: "False",
            reason: Reason.AwaitingApproval,
            message,
            observedGeneration: generation,
          },
        ],
        remove: ["Reconciling", "Stalled"],
      },
      { ...fields, ...estimate },
    );
  }
  const limit = spec.maxHourlyCost;
  const comparison = limit === undefined || total === undefined ? undefined : compareDecimal(total, limit);
  if (comparison === undefined) {
    return stop(
      Reason.InvalidSpec,
      `cannot compare the estimate (${quoted}) with spec.maxHourlyCost ${limit ?? "(unset)"}; set spec.maxHourlyCost to a decimal such as "2.50"`,
    );
  }
  if (comparison > 0) {
    return stop(
      Reason.OverBudget,
      `growing costs ${quoted}, above spec.maxHourlyCost ${limit}; no order was placed: raise the limit or lower spec.count`,
    );
  }
  if (observed.refused !== undefined) return blocked(input, observed.refused, [], { ...fields, ...estimate });
  return result(
    input,
    [{ type: "growOrder", input: request, intent, target: spec.count, ...estimate }],
    reconciling(Reason.Progressing, `ordering ${quoted}`, generation),
    { ...fields, ...estimate },
  );
}

/** The servers a growth step orders, and the step (which order it follows, at what count). */
function growthStep(input: OrderPlanInput, first: Order, target: number, count: number) {
  const { serverOrder, observed } = input;
  const gridIds = observed.grids.ok ? observed.grids.gridIds : [];
  const request: ProvisionInput = { ...desiredInput(serverOrder.spec, gridIds), count };
  const step = {
    after: first.id,
    // Every growth order placed so far, folded ones too, so no later step repeats an earlier key.
    orders: (serverOrder.status?.growthOrders?.length ?? 0) + (serverOrder.status?.folded?.growthOrders ?? 0),
    removed: serverOrder.status?.removedCount ?? 0,
    target,
  };
  return { request, step };
}

/**
 * A growth order call of an earlier version (status.growing, before intents) whose answer was not
 * recorded: adopt the order it placed, stall if several
 * could be it, or send the same call again under the same key (the service replays it if it acted).
 */
function planGrowthAttempt(input: OrderPlanInput, first: Order, fields: StepFields): OrderPlan {
  const { serverOrder, observed } = input;
  const generation = generationOf(serverOrder);
  const marker = serverOrder.status?.growing;
  if (marker === undefined) throw new TypeError("planGrowthAttempt needs status.growing");
  const found = observed.growthCandidates;
  if (found === undefined) {
    const message = "looking for the growth order an earlier call may have placed";
    return result(input, [], reconciling(Reason.Progressing, message, generation), fields);
  }
  if (found.length > 1) {
    return blocked(
      input,
      {
        stalled: true,
        reason: OrderReason.OrderUncertain,
        message:
          `a growth order call's outcome is unknown and ${found.length} unclaimed orders could be its result ` +
          `(${found.map((o) => o.id).join(", ")}); berth will not order again: check them at the service`,
      },
      [],
      fields,
    );
  }
  const [order] = found;
  if (order !== undefined) {
    const message = `adopting growth order ${order.id}, placed by an earlier call`;
    return result(
      input,
      [{ type: "adoptGrowth", order }],
      reconciling(Reason.Progressing, message, generation),
      fields,
    );
  }
  if (!observed.grids.ok) return blocked(input, observed.grids.problem, [], fields);
  const { request, step } = growthStep(input, first, marker.target, marker.count);
  const uid = serverOrder.metadata.uid ?? serverOrder.metadata.name;
  // The key an earlier version sent it under, so the service replays it if it acted.
  const key = idempotencyKey(uid, "orderServers", { ...request, growth: step });
  const intent = { operation: growServers, input: { request, step }, attempt: 1, key };
  const message = `ordering ${marker.count} more server(s) again under the same key (an earlier call's answer was lost)`;
  return result(
    input,
    [{ type: "growOrder", input: request, intent, target: marker.target }],
    reconciling(Reason.Progressing, message, generation),
    fields,
  );
}

function shrink(
  input: OrderPlanInput,
  servers: Server[],
  alreadyRecorded: boolean,
  fields: StepFields,
): OrderPlan {
  const generation = generationOf(input.serverOrder);
  const purpose = `deprovision ${servers.length} server(s) as spec.count was lowered`;
  const missing = keyLacks(input, "update", ["pools:write"], purpose);
  if (missing !== undefined) return blocked(input, missing, [], fields);
  const addresses = servers.map((s) => s.address);
  const intent = intentCall(input.serverOrder, "shrinkServers", { addresses });
  return result(
    input,
    [{ type: "shrink", addresses, alreadyRecorded, intent }],
    reconciling(
      Reason.Progressing,
      `deprovisioning ${addresses.join(", ")}, as spec.count was lowered`,
      generation,
    ),
    { ...fields, poll: "deprovisionMs" },
  );
}

/** Newest first: by creation time, then the later order, then address (for a stable choice). */
function newestFirst(
  servers: Server[],
  first: Order,
  status: OrderPlanInput["serverOrder"]["status"],
): Server[] {
  const orderIds = [first.id, ...(status?.growthOrders ?? []).map((o) => o.id)];
  const created = (s: Server) => {
    const at = Date.parse(s.createdAt ?? "");
    return Number.isNaN(at) ? 0 : at;
  };
  return [...servers].sort(
    (a, b) =>
      created(b) - created(a) ||
      orderIds.indexOf(b.orderId ?? "") - orderIds.indexOf(a.orderId ?? "") ||
      b.address.localeCompare(a.address),
  );
}
