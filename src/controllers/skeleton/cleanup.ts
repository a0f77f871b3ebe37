import { type ConditionChange, reconciling } from "../../api/conditions.ts";
import { finalizer } from "../../api/meta.ts";
import { ensureFinalizer, type KubeObject, type ResourceType, removeFinalizer } from "../../runtime/index.ts";
import type { ControllerDeps } from "../service/deps.ts";
import { Reason } from "../service/reasons.ts";
import { noChange, problemChange, suspended } from "./condition-changes.ts";
import type { BaseKnowledge, BasePlan, Resource } from "./kind.ts";

/** A kind's plan with the skeleton's own step on the finalizer. */
export type Decided<P> = P & {
  /** The finalizer goes on before the plan's first action (a deletion then cleans up what it made). */
  addsFinalizer?: boolean;
};

/** The parts of a kind the plan for a resource comes from. */
export interface Plans<R, K, P> {
  plan(resource: R, knowledge: K, now: Date): P;
  planCleanup(resource: R, knowledge: K, now: Date): P;
  report(resource: R, knowledge: K, change: ConditionChange, now: Date): P;
  externalId?: string | undefined;
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
 * known. Pure.
 */
export function planFor<R extends Resource, K extends BaseKnowledge, P extends BasePlan<unknown>>(
  kind: Plans<R, K, P>,
  resource: R,
  knowledge: K,
  now: Date,
): Decided<P> {
  const generation = resource.metadata.generation ?? 0;
  const held = holdsFinalizer(resource);
  if (resource.metadata.deletionTimestamp !== undefined) {
    if (!held) return kind.report(resource, knowledge, noChange(), now);
    if (resource.spec.deletionPolicy === "Orphan") {
      const releasing = reconciling(Reason.Deleting, "releasing; it stays at the service", generation);
      return { ...kind.report(resource, knowledge, releasing, now), release: { orphan: true } };
    }
    return kind.planCleanup(resource, knowledge, now);
  }
  if (resource.spec.suspend) return kind.report(resource, knowledge, suspended(generation), now);
  if (knowledge.problem !== undefined)
    return kind.report(resource, knowledge, problemChange(knowledge.problem, generation), now);
  const plan = kind.plan(resource, knowledge, now);
  const known = kind.externalId !== undefined && (plan.status as Record<string, unknown>)[kind.externalId];
  return !held && (plan.actions.length > 0 || known !== undefined) ? { ...plan, addsFinalizer: true } : plan;
}

/** Something for the skeleton to do: an action, or a step on the finalizer. */
export function hasWork(plan: Decided<BasePlan<unknown>>): boolean {
  return plan.actions.length > 0 || plan.addsFinalizer === true || plan.release !== undefined;
}

/** Adds berth's finalizer: the object as written, which later actions start from. */
export async function addFinalizer(
  deps: ControllerDeps,
  kind: { type: ResourceType },
  object: KubeObject,
): Promise<KubeObject> {
  return await ensureFinalizer(deps.kube, kind.type, object, finalizer);
}

/**
 * Removes berth's finalizer once nothing is left at the service (or Orphan keeps it there), with an
 * event for what the release leaves to a person.
 */
export async function releaseFinalizer(
  deps: ControllerDeps,
  kind: { type: ResourceType; externalId?: string | undefined },
  object: KubeObject,
  release: NonNullable<BasePlan<unknown>["release"]>,
): Promise<void> {
  if (release.warning !== undefined)
    deps.recorder.record(object, "Warning", release.warning.reason, release.warning.message);
  await removeFinalizer(deps.kube, kind.type, object, finalizer);
  if (release.orphan === true) {
    const what = (kind.externalId ?? "").replace(/Id$/, "") || "object";
    const note = `left the ${what} at the service (deletionPolicy: Orphan)`;
    deps.recorder.record(object, "Normal", "Orphaned", note, "removeFinalizer");
  }
}

/** A cleanup plan after whose actions nothing is left: the skeleton then releases the finalizer. */
export function released<P extends BasePlan<unknown>>(
  plan: P,
  warning?: { reason: string; message: string },
): P {
  return { ...plan, release: warning === undefined ? {} : { warning } };
}
