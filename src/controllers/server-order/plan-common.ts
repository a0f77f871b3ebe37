import {
  applyConditionChange,
  type ConditionChange,
  type ConditionInput,
  ConditionType,
  getCondition,
  reconciling,
} from "../../api/conditions.ts";
import type { Change } from "../../api/policies.ts";
import type { ServerOrder, ServerOrderStatus } from "../../api/server-order.ts";
import type { Problem } from "../service/failure.ts";
import { ownerToRecord } from "../service/ownership.ts";
import { Reason } from "../service/reasons.ts";
import { scopeProblem } from "../service/scopes.ts";
import { reconcileRequest } from "../skeleton/annotations.ts";
import { type Blocker, problemChange } from "../skeleton/condition-changes.ts";
import { mayCall } from "../skeleton/policies.ts";
import type { OrderAction } from "./actions.ts";
import type { OrderObserved } from "./memory.ts";

export interface OrderPlan {
  actions: OrderAction[];
  status: ServerOrderStatus;
  stalled: boolean;
  /** When to look again (deprovisioning progress); the order's own polls are in memory. */
  poll: OrderPoll | undefined;
}

/**
 * When to look again by itself: after one of the poll intervals (`OrderPolls`, from the operator's
 * settings), or after as long as the service or a backoff said (ms).
 */
export type OrderPoll = keyof OrderPolls | { ms: number };

/** The wait a plan's poll stands for. */
export function pollMs(poll: OrderPoll, polls: OrderPolls): number {
  return typeof poll === "string" ? polls[poll] : poll.ms;
}

/** How long to wait before looking at work in flight again (milliseconds). */
export interface OrderPolls {
  /** An order in flight whose answer carried no pollAfterSec. */
  orderMs: number;
  /** Servers being deprovisioned. */
  deprovisionMs: number;
  /** Servers hibernating or waking; a wake the service did not act on is retried after a multiple of this. */
  powerMs: number;
}

export interface OrderPlanInput {
  serverOrder: ServerOrder;
  observed: OrderObserved;
  now: Date;
}

/** Status fields a step sets besides the summary conditions. */
export interface StepFields {
  estimate?: { hourlyCost: string; currency: string };
  phase?: string;
  /** The Ordered condition (its generation is filled in). */
  ordered?: Omit<ConditionInput, "type" | "observedGeneration">;
  poll?: OrderPoll;
}

/** `status.phase` while an order call may be in flight: with no orderId recorded after it, look before ordering again. */
export const orderingPhase = "Ordering";

/** Scopes a dry run and a real order need at the service. */
export const orderScopes = ["pools:write", "compute:spend"];

/**
 * The scopes the key lacks for a call of this change, as a Stalled MissingScopes problem; none when
 * the management policies hold such calls back (never sent, so [Observe] works with a read-only key).
 */
export function keyLacks(
  input: OrderPlanInput,
  change: Change,
  needed: readonly string[],
  purpose: string,
): Problem | undefined {
  const me = input.observed.me;
  if (me === undefined || !mayCall(input.serverOrder.spec, change)) return undefined;
  return scopeProblem(me, needed, purpose);
}

/** Condition reasons only the ServerOrder controller writes (besides the service's own error codes). */
export const OrderReason = {
  /** An order call's outcome is unknown and several orders could be its result: a person picks. */
  OrderUncertain: "OrderUncertain",
  /** Servers the order delivered are no longer listed. */
  ServersMissing: "ServersMissing",
  /** A berth.dev/replace-server value berth will not act on (malformed, or not this order's server). */
  ReplaceRefused: "ReplaceRefused",
  /** The service reports a server failed and spec.autoReplace is off. */
  ServerFailed: "ServerFailed",
} as const;

/**
 * An order call of an earlier version (before intents) with an unknown outcome: the Ordered
 * condition turned Unknown when it was about to be sent, and its time is part of its
 * Idempotency-Key. Undefined without such a marker, and for a status that records intents.
 */
export function orderMarker(status: ServerOrderStatus | undefined): Date | undefined {
  if (status?.phase !== orderingPhase || status.intents !== undefined) return undefined;
  const at = Date.parse(getCondition(status.conditions, ConditionType.Ordered)?.lastTransitionTime ?? "");
  return new Date(Number.isNaN(at) ? 0 : at);
}

export function generationOf(serverOrder: ServerOrder): number {
  return serverOrder.metadata.generation ?? 0;
}

export function blocked(
  input: OrderPlanInput,
  problem: Blocker,
  actions: OrderAction[] = [],
  fields: StepFields = {},
): OrderPlan {
  return result(input, actions, problemChange(problem, generationOf(input.serverOrder)), fields);
}

export function result(
  input: OrderPlanInput,
  actions: OrderAction[],
  change: ConditionChange,
  fields: StepFields = {},
): OrderPlan {
  const { serverOrder, observed, now } = input;
  const generation = generationOf(serverOrder);
  const previous = serverOrder.status ?? {};
  const reconcileAt = serverOrder.spec.suspend
    ? previous.lastHandledReconcileAt
    : reconcileRequest(serverOrder);
  const orderId = observed.order?.id ?? previous.orderId;
  const servers =
    observed.order !== undefined && observed.servers !== undefined
      ? observed.servers.map(({ address, state }) => ({ address, state, ...powerOf(state) }))
      : previous.servers;
  const set = [...change.set];
  if (fields.ordered !== undefined) {
    set.push({ type: ConditionType.Ordered, ...fields.ordered, observedGeneration: generation });
  }
  const status: ServerOrderStatus = {
    ...previous,
    ...(fields.estimate === undefined ? {} : { estimate: fields.estimate }),
    ...(orderId === undefined ? {} : { orderId }),
    ...ownerToRecord(previous.owner, observed.identity, observed.order !== undefined),
    ...(fields.phase === undefined ? {} : { phase: fields.phase }),
    ...(servers === undefined ? {} : { servers }),
    ...(reconcileAt === undefined ? {} : { lastHandledReconcileAt: reconcileAt }),
    lastRequestId: observed.requestId,
    observedGeneration: generation,
    conditions: applyConditionChange(previous.conditions, { set, remove: change.remove }, now),
  };
  const isStalled = set.some((c) => c.type === ConditionType.Stalled && c.status === "True");
  return { actions, status, stalled: isStalled, poll: fields.poll };
}

const powerStates: Record<string, string> = {
  running: "On",
  hibernated: "Hibernated",
  hibernating: "Hibernating",
  waking: "Waking",
};

/** A server's power state for status, from the service's state (none for other states). */
function powerOf(state: string): { power?: string } {
  const power = powerStates[state];
  return power === undefined ? {} : { power };
}

/**
 * An order call may have been sent without its answer recorded: adopt the one order it may have
 * placed, stall if several could be it, and (undefined) order again under the same key if none.
 */
export function planEarlierAttempt(input: OrderPlanInput): OrderPlan | undefined {
  const found = input.observed.candidates;
  const generation = generationOf(input.serverOrder);
  if (found === undefined) {
    return result(
      input,
      [],
      reconciling(Reason.Progressing, "looking for an order an earlier call may have placed", generation),
    );
  }
  if (found.length > 1) {
    return blocked(input, {
      stalled: true,
      reason: OrderReason.OrderUncertain,
      message:
        `an order call's outcome is unknown and ${found.length} unclaimed orders could be its result ` +
        `(${found.map((o) => o.id).join(", ")}); berth will not order again: check them at the service, ` +
        "deprovision the servers you don't want, then set deletionPolicy: Orphan and delete this ServerOrder",
    });
  }
  const [order] = found;
  if (order === undefined) return undefined;
  return result(
    input,
    [{ type: "adopt", order }],
    reconciling(Reason.Progressing, `adopting order ${order.id}, placed by an earlier call`, generation),
  );
}
