import { reconciling } from "../../api/conditions.ts";
import { Reason } from "../service/reasons.ts";
import { scopeProblem } from "../service/scopes.ts";
import { released } from "../skeleton/cleanup.ts";
import { orderSettled } from "./desired.ts";
import {
  blocked,
  generationOf,
  type OrderPlan,
  type OrderPlanInput,
  type OrderPoll,
  OrderReason,
  orderMarker,
  planEarlierAttempt,
  result,
} from "./plan-common.ts";

/** Server states from which the server is already on its way out. */
const leaving = new Set(["deprovisioning", "retiring"]);

/**
 * Deleted ServerOrder (the skeleton releases an Orphan, keeping the servers): `Delete` deprovisions every server of the order
 * (with `confirm`, because the resource was deleted), waiting for an order in flight to deliver
 * first, and releases the finalizer only once none is listed.
 */
export function planOrderCleanup(input: OrderPlanInput): OrderPlan {
  const { serverOrder, observed } = input;
  const generation = generationOf(serverOrder);
  const deleting = (message: string) => reconciling(Reason.Deleting, message, generation);
  const unordered = () => released(result(input, [], deleting("releasing; no order was placed")));
  const recorded = serverOrder.status?.orderId ?? serverOrder.spec.orderId ?? observed.order?.id;
  const marked = orderMarker(serverOrder.status) !== undefined;
  if (recorded === undefined && !marked) return unordered();
  if (observed.problem !== undefined) return blocked(input, observed.problem);
  if (marked) {
    const found = observed.candidates ?? [];
    if (found.length > 1) {
      const warning =
        `an order call's outcome was unknown and orders ${found.map((o) => o.id).join(", ")} could be its result; ` +
        "berth deprovisioned none of them: check them at the service";
      return released(result(input, [], deleting("releasing")), {
        reason: OrderReason.OrderUncertain,
        message: warning,
      });
    }
    const earlier = planEarlierAttempt(input);
    if (earlier !== undefined) return earlier;
  }
  const orderId = observed.order?.id ?? recorded;
  if (orderId === undefined) return unordered();
  const purpose = `deprovision the servers of order ${orderId} (or set deletionPolicy: Orphan to keep them)`;
  const missing = observed.me && scopeProblem(observed.me, ["pools:write"], purpose);
  if (missing !== undefined) return blocked(input, missing);
  const growing = serverOrder.status?.growing;
  if (growing !== undefined) {
    // A growth call's answer was lost: its order's servers are deprovisioned too, once it is found.
    const found = observed.growthCandidates;
    if (found === undefined)
      return result(input, [], deleting("looking for a growth order an earlier call may have placed"));
    const [grown] = found;
    if (found.length === 1 && grown !== undefined) {
      return result(
        input,
        [{ type: "adoptGrowth", order: grown }],
        deleting(`adopting growth order ${grown.id}`),
      );
    }
  }
  const order = observed.order;
  const servers = observed.servers ?? [];
  const live = servers.filter((s) => !leaving.has(s.state));
  if (live.length > 0) {
    return result(
      input,
      [{ type: "deprovision", orderId, addresses: live.map((s) => s.address) }],
      deleting(`deprovisioning ${live.length} server(s) of order ${orderId}`),
      { phase: "Deleting", poll: "deprovisionMs" },
    );
  }
  const growthInFlight = (observed.growthOrders ?? []).find((o) => !orderSettled(o));
  if (growthInFlight !== undefined) {
    const message = `waiting for growth order ${growthInFlight.id} to deliver its servers, to deprovision them`;
    return result(input, [], deleting(message), { phase: "Deleting", poll: "orderMs" });
  }
  if (order !== undefined && !orderSettled(order)) {
    const poll: OrderPoll =
      typeof order.pollAfterSec === "number" ? { ms: order.pollAfterSec * 1000 } : "orderMs";
    const message = `waiting for order ${orderId} to deliver its servers, to deprovision them`;
    return result(input, [], deleting(message), { phase: "Deleting", poll });
  }
  if (observed.servers === undefined || servers.length > 0) {
    const message = `waiting for ${servers.length} server(s) of order ${orderId} to finish deprovisioning`;
    return result(input, [], deleting(message), { phase: "Deleting", poll: "deprovisionMs" });
  }
  return released(result(input, [], deleting(`the servers of order ${orderId} are gone; releasing`)));
}
