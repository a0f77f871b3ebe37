import { observeOnly } from "../../api/policies.ts";
import { Outcome, type Reconciler } from "../../runtime/index.ts";
import type { ControllerDeps } from "../service/deps.ts";
import { budgetKey, budgetRequeue, learnProgress } from "./budget-gate.ts";
import { checkClaim } from "./claim.ts";
import { converge } from "./converge.ts";
import { copiedFrom, copiedMessage } from "./copied-owned.ts";
import type { Action, BaseKnowledge, BasePlan, Kind, Resource } from "./kind.ts";
import { Memory } from "./memory.ts";
import { parseForReconcile } from "./object.ts";
import { OutputWriter } from "./outputs/writer.ts";
import { OwnWrites } from "./own-writes.ts";
import { withRestoredIdentity } from "./owned.ts";
import { allowanceOf, withAllowance } from "./policies.ts";
import { leaveToHolder, standAside } from "./refusal.ts";
import { isSettled, requeue } from "./schedule.ts";
import { invalidSpec, writeBack } from "./status.ts";
import { withUninstall } from "./uninstall.ts";

export type { Resource } from "./kind.ts";

/** What the skeleton keeps of a resource between reconciles: the kind's memory, and its own. */
interface Kept<M> {
  /** None before anything was learned. */
  memory: M | undefined;
  /** This process already saw the resource Ready (for the time-to-first-Ready metric). */
  readySeen: boolean;
}

/**
 * The reconciler every kind shares: informer lookup, forgetting deleted resources, the controller's
 * own newest write, zod parse (invalid → Stalled), the budget cap, observe → plan → perform → learn
 * → plan (see `converge`), one status write, the kept memory, and the requeue from the error policy,
 * retries and the kind's own schedule.
 */
export function kindReconciler<
  R extends Resource,
  M,
  K extends BaseKnowledge,
  A extends Action,
  F,
  P extends BasePlan<A>,
>(deps: ControllerDeps, kind: Kind<R, M, K, A, F, P>): Reconciler {
  const kept = new Memory<Kept<M>>(() => ({ memory: undefined, readySeen: false }));
  const informer = deps.informer(kind.type);
  const ownWrites = new OwnWrites(informer);
  const outputWriter = new OutputWriter(deps.kube);
  // UIDs whose finalizer this controller removed: until the informer sees them gone, a queued
  // reconcile would find a stale copy and act on the external object a second time.
  const released = new Map<string, string>();
  const forget = (key: string) => {
    kept.forget(key);
    ownWrites.forget(key);
    deps.hosting.budget.forget(budgetKey(kind.type, key));
    outputWriter.forget(key);
  };
  return async ({ key }, context) => {
    const stored = informer.get(key);
    if (stored === undefined) {
      forget(key);
      deps.claims.waiters.forget(kind.type, key);
      released.delete(key);
      return Outcome.done();
    }
    if (stored.metadata.uid !== undefined && released.get(key) === stored.metadata.uid) return Outcome.done();
    const fresh = ownWrites.freshest(key, stored);
    const parsed = parseForReconcile(kind.schema, fresh);
    if (!parsed.success) return invalidSpec(deps, kind.type, fresh, parsed.error.issues);
    // Its policies: its own, else its Namespace's, else the operator's; and whether a pause holds it.
    // Going away because its CRD is: released without calls (uninstall.ts).
    const allowance = await withUninstall(
      deps.kube,
      kind.type,
      fresh,
      allowanceOf(parsed.data, deps.management.forNamespace(fresh.metadata.namespace)),
    );
    const claimTarget = {
      deps,
      type: kind.type,
      field: kind.externalId,
      object: fresh,
      resource: withAllowance(parsed.data, allowance),
      holds: kind.holds,
    };
    // An Observe-only resource may look at what another resource manages: it never claims it.
    const observer = observeOnly(allowance.policies);
    const claim = observer ? { held: true as const, object: fresh } : await checkClaim(claimTarget);
    if (!claim.held) {
      forget(key);
      return leaveToHolder({ ...claimTarget, field: kind.externalId ?? "" }, claim);
    }
    deps.claims.waiters.forget(kind.type, key);
    const object = claim.object;
    if (object !== fresh && ownWrites.record(key, fresh, object)) context.wrote(object);
    // A copy of another's berth.dev/owned (made before its object was known) acts on none of it.
    const copied = copiedFrom(object, (other) => deps.informer(kind.type).get(other) !== undefined);
    if (copied !== undefined && !observer) {
      forget(key);
      return standAside({ ...claimTarget, object }, copiedMessage(kind.type, copied));
    }
    const resource = withAllowance(
      withRestoredIdentity(
        object === fresh ? parsed.data : (parseForReconcile(kind.schema, object).data ?? parsed.data),
        kind.externalId,
      ),
      allowance,
    );
    const uid = resource.metadata.uid ?? "";
    const { memory, readySeen } = kept.get(key, uid);
    // The Secrets it reads are in the cache before anything looks at them (a first read of a new one).
    await deps.secrets.settle(object);
    const capped = await budgetRequeue(deps, kind.type, object, key, resource);
    if (capped !== undefined) return capped;
    const hosting = deps.hosting.forReconcile({
      signal: context.signal,
      resource: `${kind.type.plural}/${key}`,
      whileWaiting: (answer) => context.whileWaiting(answer),
    });
    const observation = await kind.observe(resource, memory, hosting);
    if (observation.deferred !== undefined) {
      kept.set(key, uid, { memory: kind.remember(observation.knowledge), readySeen });
      throw observation.deferred;
    }
    const now = new Date(deps.now());
    const { connection } = observation;
    const converged = await converge(kind, {
      deps,
      object,
      resource,
      knowledge: observation.knowledge,
      connection,
      now,
      allowance,
      writes: {
        kube: deps.kube,
        recorder: deps.recorder,
        kind,
        onWrite: (before, written) => {
          if (ownWrites.record(key, before, written)) context.wrote(written);
        },
      },
    });
    // Counted from when the calls answered, not from when the reconcile began: a create that took
    // seconds is read once the app had the time to start.
    const answeredAt = new Date(deps.now());
    const schedule = kind.schedule?.(converged.knowledge, converged.plan, answeredAt) ?? {
      knowledge: converged.knowledge,
      dueAt: converged.plan.dueAt,
    };
    const entry: Kept<M> = { memory: kind.remember(schedule.knowledge), readySeen };
    // Met for the first time and nothing read or called (a suspended resource, say): nothing is kept,
    // the next reconcile starts as fresh as this one did.
    const learnedNothing = memory === undefined && observation.connection === undefined;
    if (learnedNothing) kept.forget(key);
    else kept.set(key, uid, entry);
    if (converged.interrupted !== undefined) throw converged.interrupted.error;
    // Leadership was lost: the next leader reads afresh; this one writes nothing more.
    if (context.signal.aborted) return Outcome.done();
    const written = converged.object;
    if (written === undefined) {
      forget(key);
      if (resource.metadata.uid !== undefined) released.set(key, resource.metadata.uid);
      return Outcome.done();
    }
    if (ownWrites.record(key, object, written)) context.wrote(written);
    const { plan, failure: actFailure } = converged;
    const latest = converged.resource;
    const generation = latest.metadata.generation ?? 0;
    const {
      status,
      outputs,
      readySeen: seen,
    } = await writeBack({
      deps,
      kind,
      ownWrites,
      outputWriter,
      wrote: context.wrote,
      object: written,
      resource: latest,
      previous: resource.status,
      plan,
      failure: actFailure,
      readySeen,
      now,
      claims: !observer,
    });
    entry.readySeen = seen;
    if (seen && !readySeen && learnedNothing) kept.set(key, uid, entry);
    learnProgress(deps, kind.type, key, latest, status);
    return requeue({
      settings: deps.settings,
      answeredAt,
      now: deps.now(),
      failure: actFailure ?? observation.failure,
      callFailed: actFailure !== undefined,
      outputs,
      stalled: plan.stalled,
      dueAt: schedule.dueAt,
      waiting: kind.waiting?.(converged.knowledge) ?? false,
      settled: isSettled({ status }, generation),
    });
  };
}
