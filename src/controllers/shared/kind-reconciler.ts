import type { Intent } from "../../api/intents.ts";
import {
  deepEqual,
  type KubeObject,
  Outcome,
  objectKey,
  patchAnnotations,
  type Reconciler,
} from "../../runtime/index.ts";
import { budgetKey, budgetRequeue, learnProgress } from "./budget-gate.ts";
import { converge } from "./converge.ts";
import type { ControllerDeps } from "./deps.ts";
import { identityAnnotations, withRestoredIdentity } from "./external-name.ts";
import {
  type Action,
  type BaseKnowledge,
  type BasePlan,
  type Kind,
  type Resource,
  retryFailure,
} from "./kind.ts";
import { Memory } from "./memory.ts";
import { outputsOf, withOutputs } from "./outputs/hook.ts";
import { OutputWriter } from "./outputs/writer.ts";
import { OwnWrites } from "./own-writes.ts";
import { parseForReconcile } from "./parse.ts";
import { earliest, isSettled, lookAgain, retryAt } from "./schedule.ts";
import { invalidSpec, withProblem, writeStatus } from "./status.ts";

export type { Resource } from "./kind.ts";

/** The status with the skeleton's intents (none: the field is dropped). */
function withIntentList<S extends { intents?: Intent[] | undefined }>(status: S, intents: Intent[]): S {
  const { intents: _, ...rest } = status;
  return (intents.length === 0 ? rest : { ...rest, intents }) as S;
}

/** What the skeleton keeps of a resource between reconciles: the kind's memory, and its own. */
interface Kept<M> {
  memory: M;
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
  const kept = new Memory<Kept<M>>(() => ({ memory: kind.newMemory(), readySeen: false }));
  const informer = deps.informer(kind.type);
  const ownWrites = new OwnWrites(informer);
  const outputWriter = new OutputWriter(deps.kube);
  const errorPolicy = kind.errorPolicy ?? retryFailure;
  // UIDs whose finalizer this controller removed: until the informer sees them gone, a queued
  // reconcile would find a stale copy and act on the external object a second time.
  const released = new Map<string, string>();
  const blank = kind.newMemory();
  /** Nothing learned (a suspended resource, say) is what a fresh entry holds: none is kept for it. */
  const keep = (key: string, uid: string, entry: Kept<M>) => {
    if (!entry.readySeen && deepEqual(entry.memory, blank)) kept.forget(key);
    else kept.set(key, uid, entry);
  };
  const forget = (key: string) => {
    kept.forget(key);
    ownWrites.forget(key);
    deps.hosting.budget.forget(budgetKey(kind.type, key));
    outputWriter.forget(key);
  };
  /** The external ID and owner, also in annotations once status knows them (see `withRestoredIdentity`). */
  const keepIdentity = async (object: KubeObject, status: unknown, wrote: (written: KubeObject) => void) => {
    const wanted = identityAnnotations(status, kind.externalId);
    if (wanted === undefined) return;
    const annotated = await patchAnnotations(deps.kube, kind.type, object, wanted);
    if (annotated !== undefined && ownWrites.record(objectKey(object), object, annotated)) wrote(annotated);
  };
  return async ({ key }, context) => {
    const stored = informer.get(key);
    if (stored === undefined) {
      forget(key);
      released.delete(key);
      return Outcome.done();
    }
    if (stored.metadata.uid !== undefined && released.get(key) === stored.metadata.uid) return Outcome.done();
    const object = ownWrites.freshest(key, stored);
    const parsed = parseForReconcile(kind.schema, object);
    if (!parsed.success) return invalidSpec(deps, kind.type, object, parsed.error.issues);
    const resource = withRestoredIdentity(parsed.data, kind.externalId);
    const uid = resource.metadata.uid ?? "";
    const { memory, readySeen } = kept.get(key, uid);
    // The Secrets it reads are in the cache before anything looks at them (a first read of a new one).
    await deps.secrets.settle(object);
    const capped = await budgetRequeue(deps, kind.type, object, key, resource);
    if (capped !== undefined) return capped;
    const hosting = deps.hosting.forReconcile({
      signal: context.signal,
      resource: `${kind.type.plural}/${key}`,
    });
    const observation = await kind.observe(resource, memory, hosting);
    const now = new Date(deps.now());
    const { connection } = observation;
    const converged = await converge(kind, {
      deps,
      object,
      resource,
      knowledge: observation.knowledge,
      connection,
      now,
      onWrite: (before, written) => {
        if (ownWrites.record(key, before, written)) context.wrote(written);
      },
    });
    const schedule = kind.schedule(converged.knowledge, converged.plan, now);
    const entry: Kept<M> = { memory: kind.remember(schedule.knowledge), readySeen };
    keep(key, uid, entry);
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
    const withIntents = withIntentList(plan.status, converged.intents);
    const planned =
      actFailure === undefined ? withIntents : withProblem(withIntents, actFailure, generation, now);
    const outputs = await outputWriter.sync(
      outputsOf({ key, type: kind.type, object: written, resource: latest, status: planned }, kind.outputs),
    );
    const status = withOutputs(planned, outputs, plan.stalled || actFailure !== undefined, generation, now);
    learnProgress(deps, kind.type, key, latest, status);
    let final = written;
    entry.readySeen = await writeStatus({
      deps,
      type: kind.type,
      object: written,
      createdAt: latest.metadata.creationTimestamp,
      previous: resource.status,
      next: status,
      readySeen,
      problemRecorded: actFailure !== undefined,
      onWritten: (next) => {
        ownWrites.record(key, written, next);
        context.wrote(next);
        final = next;
      },
    });
    // Seen Ready for the first time: kept now, also when nothing else was learned.
    if (entry.readySeen && !readySeen) keep(key, uid, entry);
    await keepIdentity(final, status, context.wrote);
    const failure = actFailure ?? observation.failure;
    const retry = failure === undefined ? undefined : errorPolicy(failure);
    if (retry !== undefined) return retry;
    if (outputs.error !== undefined) return Outcome.error(outputs.error);
    const stalled = plan.stalled || failure?.stalled === true || outputs.problem !== undefined;
    // After a failed call nothing is due at once (a plan still holding that call would repeat it):
    // the Stalled schedule says when to look again.
    const due =
      actFailure !== undefined && (schedule.dueAt ?? Infinity) <= now.getTime() ? undefined : schedule.dueAt;
    const waiting = kind.waiting(converged.knowledge);
    const next = earliest(due, retryAt(deps.settings, now, stalled, waiting));
    return lookAgain(next, now.getTime(), !stalled && !waiting && !isSettled({ status }, generation));
  };
}
