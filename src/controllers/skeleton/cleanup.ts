import {
  applyConditionChange,
  type Condition,
  type ConditionChange,
  reconciling,
} from "../../api/conditions.ts";
import type { Intent } from "../../api/intents.ts";
import { finalizer } from "../../api/meta.ts";
import type { Problem } from "../service/failure.ts";
import { noNamespaceDefaults } from "../service/management.ts";
import { Reason } from "../service/reasons.ts";
import { noChange, problemChange, suspended } from "./condition-changes.ts";
import { type Blocking, mayStillAct } from "./intents.ts";
import type { BaseKnowledge, BasePlan, Resource } from "./kind.ts";
import type { OwnedField } from "./owned.ts";
import { allowanceOf, releasesWithoutCalls } from "./policies.ts";
import { type DeletionAllowance, releaseNote } from "./uninstall.ts";

/** A kind's plan with the skeleton's own step on the finalizer. */
export type Decided<P> = P & {
  /** The finalizer goes on before the plan's first action (a deletion then cleans up what it made). */
  addsFinalizer?: boolean;
};

/** The parts of a kind the plan for a resource comes from. */
export interface Plans<R, K, P extends BasePlan<unknown>> {
  plan(resource: R, knowledge: K, now: Date): P;
  reask?(intent: Intent, resource: R, knowledge: K): P["actions"][number] | undefined;
  planCleanup(resource: R, knowledge: K, now: Date): P;
  report(resource: R, knowledge: K, change: ConditionChange, now: Date): P;
  externalId?: string | undefined;
  owns?: readonly OwnedField[] | undefined;
}

function holdsFinalizer(resource: Resource): boolean {
  return (resource.metadata.finalizers ?? []).includes(finalizer);
}

/**
 * The plan for a resource, the same for every kind (as kube-rs's `finalizer()` splits Apply and
 * Cleanup). Going away: without berth's finalizer nothing is left to do; `deletionPolicy: Orphan`
 * releases it and calls nothing; otherwise the kind's `planCleanup` says what to call and when
 * nothing is left (`release`). Being there: `spec.suspend` and a problem call nothing; otherwise the
 * kind's `plan`, with the finalizer added before its first action or once the external object is
 * known. While a Pending intent is unsettled (`blocking`), that plan calls nothing and its status
 * says what is being settled. The deletion policy and management policies come from `allowance`
 * (the resource's, else its Namespace's, else the operator's): without Delete, a deletion releases
 * without calls as Orphan does, and so does a resource whose CRD is being deleted (`uninstalling`:
 * removing berth never deletes what it managed). Pure.
 */
export function planFor<R extends Resource, K extends BaseKnowledge, P extends BasePlan<unknown>>(
  kind: Plans<R, K, P>,
  resource: R,
  knowledge: K,
  now: Date,
  blocking?: Blocking,
  allowance: DeletionAllowance = allowanceOf(resource, noNamespaceDefaults),
): Decided<P> {
  const plan = chosenPlan(kind, resource, knowledge, now, allowance);
  return blocking === undefined ? plan : settlingPlan(plan, { resource, knowledge }, blocking, now);
}

function chosenPlan<R extends Resource, K extends BaseKnowledge, P extends BasePlan<unknown>>(
  kind: Plans<R, K, P>,
  resource: R,
  knowledge: K,
  now: Date,
  allowance: DeletionAllowance,
): Decided<P> {
  const generation = resource.metadata.generation ?? 0;
  const held = holdsFinalizer(resource);
  if (resource.metadata.deletionTimestamp !== undefined) {
    if (!held) return kind.report(resource, knowledge, noChange(), now);
    if (releasesWithoutCalls(allowance)) {
      const plain = allowance.deletionPolicy === "Orphan" && allowance.uninstalling === undefined;
      const why = plain ? "" : ` (${releaseNote(allowance)})`;
      const releasing = reconciling(Reason.Deleting, `releasing; it stays at the service${why}`, generation);
      const because = allowance.uninstalling === undefined ? {} : { because: releaseNote(allowance) };
      return { ...kind.report(resource, knowledge, releasing, now), release: { orphan: true, ...because } };
    }
    return beforeRelease(kind, resource, knowledge, kind.planCleanup(resource, knowledge, now), now);
  }
  if (resource.spec.suspend) return kind.report(resource, knowledge, suspended(generation), now);
  if (knowledge.problem !== undefined)
    return kind.report(resource, knowledge, problemChange(knowledge.problem, generation), now);
  const plan = unfoundFirst(kind, resource, knowledge, kind.plan(resource, knowledge, now), now);
  const known = kind.externalId !== undefined && (plan.status as Record<string, unknown>)[kind.externalId];
  return !held && (plan.actions.length > 0 || known !== undefined) ? { ...plan, addsFinalizer: true } : plan;
}

/** The intents the lookup found no trace of whose key may still act (see `beforeRelease`). */
function unfound(resource: Resource, now: Date): Intent[] {
  return (resource.status?.intents ?? []).filter((i) => i.state === "NotFound" && mayStillAct(i, now));
}

/**
 * A plan's call of an operation whose last call the lookup found no trace of, made under another
 * key (the spec changed while that call was in doubt): the earlier call is sent first, identical,
 * so the service's answer settles it (a replay, in progress, or done now) before a second call
 * could act too. The plan after it brings the object to the spec. Pure.
 */
function unfoundFirst<R extends Resource, K extends BaseKnowledge, P extends BasePlan<unknown>>(
  kind: Plans<R, K, P>,
  resource: R,
  knowledge: K,
  plan: P,
  now: Date,
): P {
  const earlier = kind.reask === undefined ? [] : unfound(resource, now);
  if (earlier.length === 0) return plan;
  const actions = plan.actions.map((action) => {
    const call = (action as { intent?: { operation: string; key: string } }).intent;
    const first = earlier.find((i) => i.operation === call?.operation && i.key !== call.key);
    return (first && kind.reask?.(first, resource, knowledge)) ?? action;
  });
  return { ...plan, actions };
}

/**
 * A cleanup plan about to release, while a call the lookup found no trace of (`NotFound`) may
 * still be running at the service or replay: its call is sent again, identical, and the service's
 * answer settles it (a replay or a new object is then cleaned up like any other). What it costs
 * when the first call never arrived: an object made and removed again, rather than one left running
 * with no owner. A kind that can't send a call again (`reask`) releases as before.
 */
function beforeRelease<R extends Resource, K extends BaseKnowledge, P extends BasePlan<unknown>>(
  kind: Plans<R, K, P>,
  resource: R,
  knowledge: K,
  plan: P,
  now: Date,
): P {
  if (plan.release === undefined || kind.reask === undefined) return plan;
  for (const intent of unfound(resource, now)) {
    const action = kind.reask(intent, resource, knowledge);
    if (action === undefined) continue;
    const generation = resource.metadata.generation ?? 0;
    const asking = reconciling(
      Reason.Deleting,
      `asking the service for the answer to ${intent.operation} (key ${intent.key}) before releasing: the call may still be running there`,
      generation,
    );
    return { ...kind.report(resource, knowledge, asking, now), actions: [action] };
  }
  return plan;
}

/** The resource and knowledge an unsettled intent's plan is made from. */
interface Settling {
  resource: {
    metadata: { generation?: number | undefined };
    status?: { conditions?: Condition[] | undefined } | undefined;
  };
  knowledge: { problem: Problem | undefined; requestId: string | undefined };
}

/**
 * The plan while an intent is unsettled: no calls, the status as it was with conditions that say
 * what is being settled (a problem that keeps the lookup from running comes first).
 */
function settlingPlan<
  P extends {
    actions: unknown[];
    status: object;
    stalled: boolean;
    addsFinalizer?: boolean;
    release?: unknown;
  },
>(planned: P, { resource, knowledge }: Settling, blocking: Blocking, now: Date): P {
  const generation = resource.metadata.generation ?? 0;
  const problem = blocking.stuck === undefined ? knowledge.problem : undefined;
  const change =
    problem !== undefined
      ? problemChange(problem, generation)
      : settlingChange(blocking.waiting, blocking.stuck, generation);
  const previous: { conditions?: Condition[] | undefined } = resource.status ?? {};
  const status = {
    ...previous,
    ...(knowledge.requestId === undefined ? {} : { lastRequestId: knowledge.requestId }),
    conditions: applyConditionChange(previous.conditions, change, now),
  };
  const stalled = blocking.stuck !== undefined || problem?.stalled === true;
  return {
    ...planned,
    actions: [],
    addsFinalizer: false,
    release: undefined,
    status: status as P["status"],
    stalled,
  };
}

/** The conditions while intents are being settled: nothing else is done until they are. */
export function settlingChange(
  waiting: { intent: Intent; note: string }[],
  stuck: { reason: Reason; message: string } | undefined,
  generation: number,
): ConditionChange {
  if (stuck !== undefined) return problemChange({ stalled: true, ...stuck }, generation);
  const notes = waiting.map((w) => `${w.intent.operation}: ${w.note}`).join("; ");
  return reconciling(Reason.Progressing, `settling ${notes} before acting on the spec`, generation);
}

/** Something for the skeleton to do: an action, or a step on the finalizer. */
export function hasWork(plan: Decided<BasePlan<unknown>>): boolean {
  return plan.actions.length > 0 || plan.addsFinalizer === true || plan.release !== undefined;
}

/** A cleanup plan after whose actions nothing is left: the skeleton then releases the finalizer. */
export function released<P extends BasePlan<unknown>>(
  plan: P,
  warning?: { reason: string; message: string },
): P {
  return { ...plan, release: warning === undefined ? {} : { warning } };
}
