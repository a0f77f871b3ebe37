import type { z } from "zod";
import type { Condition } from "../../api/conditions.ts";
import { type KubeObject, Outcome, type Reconciler, type ResourceType } from "../../runtime/index.ts";
import { budgetKey, budgetRequeue, learnProgress } from "./budget-gate.ts";
import type { ControllerDeps } from "./deps.ts";
import { ReconcileError } from "./errors.ts";
import type { Failure, Problem } from "./failure.ts";
import type { HostingAccess } from "./hosting-access.ts";
import { Memory } from "./memory.ts";
import { outputsOf, withOutputs } from "./outputs/hook.ts";
import { type OutputSyncResult, OutputWriter } from "./outputs/writer.ts";
import { OwnWrites } from "./own-writes.ts";
import { parseForReconcile } from "./parse.ts";
import { earliest, retryAt } from "./schedule.ts";
import { invalidSpec, withProblem, writeStatus } from "./status.ts";

type WithConditions = {
  conditions?: Condition[] | undefined;
  outputs?: { configMapName: string } | undefined;
};

/** The parts of a parsed resource the skeleton reads. */
export interface Resource {
  metadata: {
    uid?: string | undefined;
    generation?: number | undefined;
    creationTimestamp?: string | undefined;
    annotations?: Record<string, string> | undefined;
  };
  spec: { outputs?: { configMapName: string } | undefined };
  status?: WithConditions | undefined;
}

/** What `observe` found: a problem blocking progress, and a failed read (retried with backoff unless stalled). */
export interface BaseObservation {
  observed: { problem: Problem | undefined };
  failure: Failure | undefined;
}

/** What `act` did: the object as last written (undefined once released) and the failure it stopped at. */
export interface BaseActed {
  object: KubeObject | undefined;
  failure: Failure | undefined;
}

/** The plan whose status is written. */
export interface BasePlan {
  status: WithConditions;
  stalled: boolean;
}

/** One reconcile's view of a resource, from observe on. */
export interface Round<R, M, O> {
  /** The object as stored (or as this controller last wrote it). */
  object: KubeObject;
  resource: R;
  memory: M;
  observation: O;
  now: Date;
}

export interface Converged<R, A, P> {
  acted: A;
  final: P;
  /** The resource as `act` last wrote it, when that may differ from the round's. */
  resource?: R;
}

/** What one kind brings to the shared observe → plan → act → status skeleton. */
export interface Kind<R extends Resource, M extends { readySeen: boolean }, O, A, P extends BasePlan> {
  type: ResourceType;
  schema: z.ZodType<R>;
  newMemory(): M;
  /** Reads what the plan needs, calling the service only through `hosting` (this reconcile's access). */
  observe(resource: R, memory: M, hosting: HostingAccess): Promise<O>;
  /** Plans and acts; returns what was done and the plan (made on the updated knowledge) whose status is written. */
  converge(round: Round<R, M, O>): Promise<Converged<R, A, P>>;
  /** When the kind next reads or acts by itself (epoch ms), besides retries. */
  dueAt(round: Round<R, M, O>, converged: Converged<R, A, P>): number | undefined;
  /** The resource waits for something in the cluster (retried after `polls.waitingMs` if its change is missed). */
  waiting(observation: O): boolean;
  /** What the output ConfigMap (spec.outputs) holds for this status: only keys whose values are known. Pure. */
  outputs(resource: R, status: P["status"]): Record<string, string>;
}

/**
 * The reconciler every kind shares: informer lookup, forgetting deleted resources, the controller's
 * own newest write, zod parse (invalid → Stalled), per-resource memory, observe → converge, one
 * status write, and the requeue from failures, retries and the kind's own schedule.
 */
export function kindReconciler<
  R extends Resource,
  M extends { readySeen: boolean },
  O extends BaseObservation,
  A extends BaseActed,
  P extends BasePlan,
>(deps: ControllerDeps, kind: Kind<R, M, O, A, P>): Reconciler {
  const memories = new Memory<M>(kind.newMemory);
  const informer = deps.informer(kind.type);
  const ownWrites = new OwnWrites(informer);
  const outputWriter = new OutputWriter(deps.kube);
  // UIDs whose finalizer this controller removed: until the informer sees them gone, a queued
  // reconcile would find a stale copy and act on the external object a second time.
  const released = new Map<string, string>();
  return async ({ key }, context) => {
    const stored = informer.get(key);
    if (stored === undefined) {
      memories.forget(key);
      ownWrites.forget(key);
      deps.hosting.budget.forget(budgetKey(kind.type, key));
      outputWriter.forget(key);
      released.delete(key);
      return Outcome.done();
    }
    if (stored.metadata.uid !== undefined && released.get(key) === stored.metadata.uid) return Outcome.done();
    const object = ownWrites.freshest(key, stored);
    const parsed = parseForReconcile(kind.schema, object);
    if (!parsed.success) return invalidSpec(deps, kind.type, object, parsed.error.issues);
    const resource = parsed.data;
    const memory = memories.get(key, resource.metadata.uid ?? "");
    const capped = budgetRequeue(deps, kind.type, object, key, resource);
    if (capped !== undefined) return capped;
    const hosting = deps.hosting.forReconcile({
      signal: context.signal,
      resource: `${kind.type.plural}/${key}`,
    });
    const observation = await kind.observe(resource, memory, hosting);
    const round: Round<R, M, O> = { object, resource, memory, observation, now: new Date(deps.now()) };
    const converged = await kind.converge(round);
    // Leadership was lost: the next leader reads afresh; this one writes nothing more.
    if (context.signal.aborted) return Outcome.done();
    const { acted, final } = converged;
    const written = acted.object;
    if (written === undefined) {
      memories.forget(key);
      ownWrites.forget(key);
      deps.hosting.budget.forget(budgetKey(kind.type, key));
      outputWriter.forget(key);
      if (resource.metadata.uid !== undefined) released.set(key, resource.metadata.uid);
      return Outcome.done();
    }
    if (ownWrites.record(key, object, written)) context.wrote(written);
    const { now } = round;
    const latest = converged.resource ?? resource;
    const { metadata } = latest;
    const generation = metadata.generation ?? 0;
    const planned =
      acted.failure === undefined ? final.status : withProblem(final.status, acted.failure, generation, now);
    const outputs: OutputSyncResult = await outputWriter.sync(
      outputsOf({ key, type: kind.type, object: written, resource: latest, status: planned }, kind.outputs),
    );
    const status = withOutputs(
      planned,
      outputs,
      final.stalled || acted.failure !== undefined,
      generation,
      now,
    );
    learnProgress(deps, kind.type, key, converged.resource ?? resource, status);
    memory.readySeen = await writeStatus({
      deps,
      type: kind.type,
      object: written,
      createdAt: metadata.creationTimestamp,
      previous: resource.status,
      next: status,
      readySeen: memory.readySeen,
      problemRecorded: acted.failure !== undefined,
      onWritten: (next) => {
        ownWrites.record(key, written, next);
        context.wrote(next);
      },
    });
    const failure = acted.failure ?? observation.failure;
    // The service said how long to wait (Retry-After, retryAfterSec): exactly that, not backoff on top.
    if (failure?.retryAfterMs !== undefined && !failure.stalled)
      return Outcome.requeueAfter(failure.retryAfterMs);
    if (failure !== undefined && !failure.stalled) return Outcome.error(new ReconcileError(failure));
    if (outputs.error !== undefined) return Outcome.error(outputs.error);
    const stalled = final.stalled || failure?.stalled === true || outputs.problem !== undefined;
    const next = earliest(
      kind.dueAt(round, converged),
      retryAt(deps.settings, now, stalled, kind.waiting(observation)),
    );
    return next === undefined ? Outcome.done() : Outcome.requeueAfter(Math.max(0, next - now.getTime()));
  };
}
