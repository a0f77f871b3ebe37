import {
  applyConditionChange,
  type ConditionInput,
  ConditionType,
  reconciling,
} from "../../api/conditions.ts";
import { annotations } from "../../api/meta.ts";
import { Reason } from "../service/reasons.ts";
import { pendingRequest, requestValue } from "../skeleton/annotations.ts";
import { type IntentCall, intentCall } from "../skeleton/intents.ts";
import type { ReplaceAction } from "./actions.ts";
import { orderSettled } from "./desired.ts";
import { liveServers } from "./growth.ts";
import {
  blocked,
  generationOf,
  keyLacks,
  type OrderPlan,
  type OrderPlanInput,
  OrderReason,
  orderScopes,
  result,
  type StepFields,
} from "./plan-common.ts";

/** The condition that tells how the last replacement (or refused request) went. */
export const replacedCondition = "Replaced";

/** States the service replaces a server from; berth waits out the others (a transition ends by itself). */
const replaceable = new Set(["running", "hibernated", "failed"]);

const addressPattern = /^0x[0-9a-f]{40}$/;

/** `<address>@<token>`, the address lowercased; undefined when malformed. */
export function parseReplaceRequest(value: string): { address: string; token: string } | undefined {
  const at = value.indexOf("@");
  const address = value.slice(0, Math.max(at, 0)).trim().toLowerCase();
  const token = value.slice(at + 1).trim();
  if (at < 0 || !addressPattern.test(address) || token === "") return undefined;
  return { address, token };
}

/**
 * Replacing servers: a replace call whose answer was lost is sent again under its key; a replacement
 * order in flight is waited for; a new berth.dev/replace-server value replaces its server once (or
 * is refused); with spec.autoReplace a failed server is replaced, one at a time; without it a failed
 * server is Stalled ServerFailed. Undefined when there is nothing to replace.
 */
export function planReplace(input: OrderPlanInput, fields: StepFields): OrderPlan | undefined {
  const { serverOrder, observed } = input;
  const status = serverOrder.status;
  const generation = generationOf(serverOrder);
  const marker = status?.replacing;
  if (marker !== undefined) {
    // An earlier version's marker (before intents): sent again under its own key.
    const message = `replacing server ${marker.address} again under the same key (an earlier call's answer was lost)`;
    const intent = {
      operation: replaceServer,
      input: { address: marker.address },
      attempt: 1,
      key: marker.idempotencyKey,
    };
    const action = { address: marker.address, request: marker.request, state: "", again: true, intent };
    return replace(input, fields, action, message);
  }
  const inFlight = (observed.replacementOrders ?? []).find((o) => !orderSettled(o));
  if (inFlight !== undefined) {
    const replaced = status?.replacements?.find((r) => r.orderId === inFlight.id)?.address ?? "a server";
    const message = `replacing ${replaced}: order ${inFlight.id} is ${inFlight.state}`;
    return result(input, [], reconciling(Reason.Progressing, message, generation), fields);
  }
  const requested = planRequested(input, fields);
  if (requested !== undefined) return requested;
  const failed = liveServers(input).filter((s) => s.state === "failed");
  const [first] = failed;
  if (first === undefined) return undefined;
  if (!serverOrder.spec.autoReplace) {
    const addresses = failed.map((s) => s.address).join(", ");
    return blocked(
      input,
      {
        stalled: true,
        reason: OrderReason.ServerFailed,
        message:
          `the service reports server(s) ${addresses} failed; replace one with the annotation ` +
          `${annotations.replaceServer}: "${first.address}@<any new token>", or set spec.autoReplace: true`,
      },
      [],
      fields,
    );
  }
  const message = `replacing failed server ${first.address} (spec.autoReplace)`;
  const intent = replaceIntent(input, first.address, { failed: true });
  return replace(
    input,
    fields,
    { address: first.address, request: undefined, state: "failed", again: false, intent },
    message,
  );
}

/** A berth.dev/replace-server value not handled yet: replaced once, or refused with the reason. */
function planRequested(input: OrderPlanInput, fields: StepFields): OrderPlan | undefined {
  const { serverOrder } = input;
  const echo = pendingRequest(
    requestValue(serverOrder, annotations.replaceServer),
    serverOrder.status?.lastHandledReplaceServer,
  );
  const raw = serverOrder.metadata.annotations?.[annotations.replaceServer];
  if (echo === undefined || raw === undefined) return undefined;
  const request = parseReplaceRequest(raw);
  if (request === undefined) {
    return refuse(
      input,
      echo,
      `${annotations.replaceServer} must be "<address>@<token>" (the server's 0x address, then any new token), not "${echo}"; nothing was replaced`,
      fields,
    );
  }
  const live = liveServers(input);
  const server = live.find((s) => s.address.toLowerCase() === request.address);
  const leavingNow = (input.observed.servers ?? []).find((s) => s.address.toLowerCase() === request.address);
  if (server === undefined && leavingNow !== undefined) {
    const message = `server ${request.address} is already leaving (${leavingNow.state}); nothing was replaced`;
    return refuse(input, echo, message, fields);
  }
  if (server === undefined) {
    const ours = live.map((s) => s.address);
    const listed = ours.length <= 5 ? ours.join(", ") : `${ours.slice(0, 5).join(", ")}, …`;
    return refuse(
      input,
      echo,
      `server ${request.address} is not one of this ServerOrder's servers (${listed || "none"}); nothing was replaced`,
      fields,
    );
  }
  if (!replaceable.has(server.state)) {
    const message = `waiting for server ${server.address} (${server.state}) to settle before replacing it`;
    return result(input, [], reconciling(Reason.Progressing, message, generationOf(serverOrder)), {
      ...fields,
      poll: "powerMs",
    });
  }
  const message = `replacing server ${server.address} (${annotations.replaceServer} ${echo})`;
  const intent = replaceIntent(input, server.address, { token: request.token }, echo);
  return replace(
    input,
    fields,
    { address: server.address, request: echo, state: server.state, again: false, intent },
    message,
  );
}

/** The intent operation of a replacement. */
export const replaceServer = "replaceServer";

/**
 * A replacement's intent: the server, what asked for it, and the placement its one-server order
 * has (the lookup after a lost answer matches orders on it).
 */
function replaceIntent(
  input: OrderPlanInput,
  address: string,
  why: Record<string, unknown>,
  request?: string,
): IntentCall {
  const { csp, region, zone, instanceType } = input.serverOrder.spec;
  const keyed = { address, ...why, placement: { csp, region, zone: zone ?? "", instanceType } };
  // The key leaves out the annotation's spelling: the same address and token are the same request.
  const recorded = request === undefined ? keyed : { ...keyed, request };
  return intentCall(input.serverOrder, replaceServer, recorded, keyed);
}

function replace(
  input: OrderPlanInput,
  fields: StepFields,
  action: Omit<Extract<ReplaceAction, { type: "replace" }>, "type">,
  message: string,
): OrderPlan {
  const missing = keyLacks(input, "update", orderScopes, "replace a server (it orders a new one)");
  if (missing !== undefined) return blocked(input, missing, [], fields);
  if (!input.serverOrder.spec.approved) return awaitingApprovalToReplace(input, action.address, fields);
  const refused = input.observed.replaceRefused;
  if (refused !== undefined) {
    // The service's own refusal replaced nothing: the next attempt (a new key) waits for the Stalled schedule.
    const condition: ConditionInput = {
      type: replacedCondition,
      status: "False",
      reason: refused.reason,
      message: refused.message,
      observedGeneration: generationOf(input.serverOrder),
    };
    const plan = blocked(input, refused, [], fields);
    const conditions = applyConditionChange(
      plan.status.conditions,
      { set: [condition], remove: [] },
      input.now,
    );
    const echo = action.request === undefined ? {} : { lastHandledReplaceServer: action.request };
    return { ...plan, status: { ...plan.status, conditions, ...echo } };
  }
  const plan = result(
    input,
    [{ type: "replace", ...action }],
    reconciling(Reason.Progressing, message, generationOf(input.serverOrder)),
    fields,
  );
  // The request is handled once its call is sent: echoed with the intent's outcome.
  return action.request === undefined
    ? plan
    : { ...plan, status: { ...plan.status, lastHandledReplaceServer: action.request } };
}

/**
 * A replacement orders a new machine, so it waits for spec.approved like any order; the request
 * stays unhandled (not echoed) until then.
 */
function awaitingApprovalToReplace(input: OrderPlanInput, address: string, fields: StepFields): OrderPlan {
  const message = `server ${address} is to be replaced, which orders a new one: set spec.approved: true to replace it`;
  const generation = generationOf(input.serverOrder);
  const waiting = {
    status: "False" as const,
    reason: Reason.AwaitingApproval,
    message,
    observedGeneration: generation,
  };
  return result(
    input,
    [],
    {
      set: [
        { type: ConditionType.Ready, ...waiting },
        { type: replacedCondition, ...waiting },
      ],
      remove: [ConditionType.Reconciling, ConditionType.Stalled],
    },
    fields,
  );
}

/** Echoes the value and says why in the Replaced condition: refused once, never retried. */
function refuse(input: OrderPlanInput, echo: string, message: string, fields: StepFields): OrderPlan {
  const condition: ConditionInput = {
    type: replacedCondition,
    status: "False",
    reason: OrderReason.ReplaceRefused,
    message,
    observedGeneration: generationOf(input.serverOrder),
  };
  const plan = result(input, [{ type: "refuseReplace", message }], { set: [condition], remove: [] }, fields);
  return { ...plan, status: { ...plan.status, lastHandledReplaceServer: echo } };
}
