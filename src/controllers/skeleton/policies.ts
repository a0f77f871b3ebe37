import {
  applyConditionChange,
  type Condition,
  type ConditionChange,
  ConditionType,
} from "../../api/conditions.ts";
import {
  allPolicies,
  type Change,
  type ManagementPolicy,
  observeOnly,
  policiesAllow,
} from "../../api/policies.ts";
import type { Doing } from "../service/failure.ts";
import type { NamespaceManagement, UnreadableAnnotation } from "../service/management.ts";
import { Reason } from "../service/reasons.ts";
import type { Action, ActionChange, BasePlan } from "./kind.ts";

export type { ActionChange } from "./kind.ts";

/** Where a pause comes from. */
export type PausedBy = "namespace" | "operator";

/**
 * What the skeleton may call for one resource: its management policies and deletion policy (the
 * resource's, else its Namespace's default, else the operator's), and a pause of its Namespace or
 * of the whole operator.
 */
export interface Allowance {
  policies: readonly ManagementPolicy[];
  deletionPolicy: "Delete" | "Orphan";
  paused: PausedBy | undefined;
  /** A Namespace annotation berth can't read: it holds changes as a pause does (fails closed). */
  unreadable?: UnreadableAnnotation | undefined;
}

/** Full management, not paused: today's behaviour. */
export const fullAllowance: Allowance = {
  policies: allPolicies,
  deletionPolicy: "Delete",
  paused: undefined,
};

/**
 * A resource's allowance: its own policies, else its Namespace's default, else the operator's
 * (resolved into `defaults` by the source), else full management; the same for the deletion policy.
 */
export function allowanceOf(
  resource: {
    spec: {
      managementPolicies?: readonly ManagementPolicy[] | undefined;
      deletionPolicy?: string | undefined;
    };
  },
  defaults: NamespaceManagement,
): Allowance {
  const own = resource.spec.deletionPolicy;
  return {
    policies: resource.spec.managementPolicies ?? defaults.policies ?? allPolicies,
    deletionPolicy: own === "Orphan" || own === "Delete" ? own : (defaults.deletionPolicy ?? "Delete"),
    paused: defaults.paused,
    ...(defaults.unreadable === undefined ? {} : { unreadable: defaults.unreadable }),
  };
}

/**
 * The resource as the skeleton and its kind act on it: the resolved policies in its spec, and
 * deletionPolicy Orphan when the policies allow no Delete (a deletion then releases without calls
 * everywhere: reads, settlement, the claim check).
 */
export function withAllowance<R extends { spec: object }>(resource: R, allowance: Allowance): R {
  const deletionPolicy = releasesWithoutCalls(allowance) ? "Orphan" : "Delete";
  return {
    ...resource,
    spec: { ...resource.spec, managementPolicies: [...allowance.policies], deletionPolicy },
  };
}

/** Whether an action of this change may be called now. */
export function allows(allowance: Allowance, change: ActionChange): boolean {
  if (change === "none") return true;
  return holding(allowance) === undefined && policiesAllow(allowance.policies, change);
}

/**
 * Whether a resource's management policies (resolved into its spec by `withAllowance`) let a call
 * of this change be sent. A plan checks the key's scopes only for such calls: one the policies hold
 * back is never sent, so an [Observe] resource works with a read-only key. Pure.
 */
export function mayCall(
  spec: { managementPolicies?: readonly ManagementPolicy[] | undefined },
  change: ActionChange,
): boolean {
  return change === "none" || policiesAllow(spec.managementPolicies ?? allPolicies, change);
}

/** The change an action makes, or prepares (a dry run is held back with its order). */
export function changeOf<A extends Action>(changes: { readonly [T in A["type"]]: ActionChange }, action: A) {
  return action.prepares ?? changes[action.type as A["type"]];
}

/** The actions the policies let be sent (see `mayCall`): the ones whose scopes a plan checks. Pure. */
export function sentActions<A extends Action>(
  spec: { managementPolicies?: readonly ManagementPolicy[] | undefined },
  changes: { readonly [T in A["type"]]: ActionChange },
  actions: readonly A[],
): A[] {
  return actions.filter((action) => mayCall(spec, changeOf(changes, action)));
}

/** A deletion calls nothing and leaves the object at the service: Orphan, or no Delete policy. */
export function releasesWithoutCalls(allowance: Allowance): boolean {
  return allowance.deletionPolicy === "Orphan" || !policiesAllow(allowance.policies, "delete");
}

/** An action the allowance held back, for the status and the event. */
export interface HeldAction {
  type: string;
  change: Change;
  doing: string;
  fields: readonly string[] | undefined;
}

/** How one kind's actions are judged and described. */
export interface Judging<A extends Action> {
  changes: { readonly [T in A["type"]]: ActionChange };
  doing: Doing<A>;
}

function describeAction<A extends Action>(doing: Doing<A>, action: A): string {
  const entry = doing[action.type as A["type"]] as string | ((action: A) => string);
  return typeof entry === "string" ? entry : entry(action);
}

/**
 * The plan with only the actions the allowance allows (decided here, in the skeleton, for every
 * kind). Anything held back: no release (a deletion waits), and the status says what was held,
 * Ready False with the reason (`Paused`, `DriftNotReverted`, `ExternalNotFound`, `DeleteHeld`) and
 * no Reconciling (nothing is in flight). An Observe-only resource never takes the finalizer. Pure.
 */
export function gatePlan<A extends Action, P extends BasePlan<A> & { addsFinalizer?: boolean }>(
  plan: P,
  judging: Judging<A>,
  allowance: Allowance,
  context: { generation: number; now: Date; deleting: boolean },
): { plan: P; held: HeldAction[]; change: ConditionChange | undefined } {
  const admitted: A[] = [];
  const held: HeldAction[] = [];
  let changing = false;
  for (const action of plan.actions) {
    const own = changeOf(judging.changes, action);
    // Going away, every change is part of the deletion (an App is stopped before it is deleted).
    const change = context.deleting && own !== "none" ? "delete" : own;
    if (allows(allowance, change)) {
      admitted.push(action);
      changing ||= change !== "none";
    } else if (change !== "none") {
      const fields = (action as { fields?: unknown }).fields;
      held.push({
        type: action.type,
        change,
        doing: describeAction(judging.doing, action),
        fields: Array.isArray(fields) ? fields.filter((f): f is string => typeof f === "string") : undefined,
      });
    }
  }
  // The finalizer only once a call may act: none while every create is held (nothing was made).
  const createHeld = !changing && held.some((h) => h.change === "create");
  const finalizer = plan.addsFinalizer === true && !observeOnly(allowance.policies) && !createHeld;
  const hold = holding(allowance);
  if (held.length === 0) {
    const same = finalizer === (plan.addsFinalizer === true);
    const kept = same ? plan : { ...plan, addsFinalizer: false };
    if (hold === undefined) return { plan: kept, held, change: undefined };
    // Held with nothing to hold now: the reason says the hold (a pause keeps Ready's status).
    const change = idleHold(plan.status.conditions, hold, context.generation);
    const status = {
      ...plan.status,
      conditions: applyConditionChange(plan.status.conditions, change, context.now),
    };
    return { plan: { ...kept, status }, held, change };
  }
  const change = heldChange(held, allowance, context.generation);
  const previous: { conditions?: Condition[] | undefined } = plan.status;
  const status = {
    ...plan.status,
    conditions: applyConditionChange(previous.conditions, change, context.now),
  };
  return {
    plan: { ...plan, actions: admitted, release: undefined, addsFinalizer: finalizer, status },
    held,
    change,
  };
}

function pausedBy(by: PausedBy): string {
  return by === "namespace" ? "the Namespace's berth.dev/paused annotation" : "the operator's --paused flag";
}

/** What holds every change of a resource, whatever its policies: a pause, or an annotation berth can't read. */
type Hold = { paused: PausedBy } | { unreadable: UnreadableAnnotation };

function holding(allowance: Allowance): Hold | undefined {
  if (allowance.unreadable !== undefined) return { unreadable: allowance.unreadable };
  return allowance.paused === undefined ? undefined : { paused: allowance.paused };
}

/** The reason and the words for a hold; `held`: what it held back now. */
function describeHold(hold: Hold, held: string | undefined): { reason: string; message: string } {
  if ("paused" in hold)
    return {
      reason: Reason.Paused,
      message:
        held === undefined
          ? `paused (${pausedBy(hold.paused)}): any change would be held`
          : `paused (${pausedBy(hold.paused)}): held back ${held}; reads and status go on, and it resumes once the pause is lifted`,
    };
  const { annotation, value, accepts } = hold.unreadable;
  return {
    reason: Reason.NamespaceAnnotationInvalid,
    message:
      `the Namespace's annotation ${annotation}: ${JSON.stringify(value)} can't be read (it takes ${accepts}), ` +
      `so every change here is held as by a pause${held === undefined ? "" : ` (held back ${held})`}; ` +
      "reads and status go on. Fix or remove the annotation",
  };
}

function idleHold(
  conditions: readonly Condition[] | undefined,
  hold: Hold,
  generation: number,
): ConditionChange {
  const ready = conditions?.find((c) => c.type === ConditionType.Ready);
  const { reason, message: words } = describeHold(hold, undefined);
  // A pause keeps Ready's status and adds what it said; an unreadable annotation is not Ready.
  const message =
    ready?.reason === reason ? ready.message : `${words}${ready === undefined ? "" : `; ${ready.message}`}`;
  const status = "paused" in hold ? (ready?.status ?? "Unknown") : "False";
  return {
    set: [{ type: ConditionType.Ready, status, reason, message, observedGeneration: generation }],
    remove: [],
  };
}

function listPolicies(policies: readonly ManagementPolicy[]): string {
  return `[${policies.join(", ")}]`;
}

/** The condition that says what was held back and why. Pure. */
export function heldChange(
  held: readonly HeldAction[],
  allowance: Allowance,
  generation: number,
): ConditionChange {
  const what = held.map(describeHeld).join("; ");
  const hold = holding(allowance);
  const { reason, message } =
    hold !== undefined ? describeHold(hold, what) : policyHeld(held, what, allowance.policies);
  return {
    set: [{ type: ConditionType.Ready, status: "False", reason, message, observedGeneration: generation }],
    remove: [ConditionType.Reconciling],
  };
}

function policyHeld(
  held: readonly HeldAction[],
  what: string,
  policies: readonly ManagementPolicy[],
): { reason: string; message: string } {
  const allowed = `managementPolicies ${listPolicies(policies)}`;
  if (held.some((h) => h.change === "create"))
    return {
      reason: Reason.ExternalNotFound,
      message: `it does not exist at the service, and ${allowed} allow no Create: berth reports it and creates nothing (held back ${what})`,
    };
  if (held.some((h) => h.change === "update"))
    return {
      reason: Reason.DriftNotReverted,
      message: `it differs from the spec at the service, and ${allowed} allow no Update: berth reports the difference and does not revert it (held back ${what})`,
    };
  return { reason: Reason.DeleteHeld, message: `${allowed} allow no Delete: held back ${what}` };
}

function describeHeld(held: HeldAction): string {
  return held.fields === undefined || held.fields.length === 0
    ? held.doing
    : `${held.doing} (${held.fields.join(", ")} ${held.fields.length === 1 ? "differs" : "differ"})`;
}
