import type { Intent } from "../../api/intents.ts";
import { type HostingError, isHostingError } from "../../hosting/index.ts";
import type { KubeObject } from "../../runtime/index.ts";
import type { ControllerDeps } from "../service/deps.ts";
import { describeFailedAction, doingOf, type Failure } from "../service/failure.ts";
import type { Connection } from "../service/hosting-access.ts";
import { identityOf } from "../service/ownership.ts";
import type { Decided } from "./cleanup.ts";
import { resentIntent, underIntent, withIntents, withRecorded } from "./intents.ts";
import type { Action, BaseKnowledge, BasePlan, Kind, ObjectFact, Resource } from "./kind.ts";
import { addFinalizer, type ObjectWrites, releaseFinalizer } from "./object.ts";
import { type SpendGate, spendGate } from "./spend-gate.ts";

/** What every round of one reconcile acts with. */
export interface RoundStart<R extends Resource> {
  deps: ControllerDeps;
  /** The object as the reconcile read it (events are recorded on it). */
  object: KubeObject;
  connection: Connection | undefined;
  now: Date;
  /** This reconcile's writes to its object before the final status write. */
  writes: ObjectWrites<R>;
}

/** What one reconcile has come to so far: written, learned, and the intents as they stand. */
export interface Progress<R, K> {
  object: KubeObject;
  resource: R;
  knowledge: K;
  intents: Intent[];
}

/** Why the rounds stopped early. */
export type Stop =
  /** A call failed: what it taught is learned, and the plan made after it is written. */
  | { failure: Failure }
  /** Not the service's error (a Kubernetes write failed): rethrown once what was learned is kept. */
  | { interrupted: { error: unknown } }
  /** The finalizer is gone: the object is going away and nothing more is written. */
  | { released: true }
  /** A SpendLimit refused an action before its call: nothing was called. */
  | { spendRefused: { message: string } };

/** The parts of a kind that carry out its plan. */
type Acting<R extends Resource, K, A extends Action, F> = Pick<
  Kind<R, unknown, K & BaseKnowledge, A, F, BasePlan<A>>,
  "perform" | "learn" | "doing" | "spend"
>;

const objectFacts = new Set<string>(["answered", "recorded"] satisfies ObjectFact["type"][]);

function isObjectFact<F>(fact: F | ObjectFact): fact is ObjectFact {
  return objectFacts.has((fact as { type?: unknown }).type as string);
}

/** One round: the finalizer if it is due, the plan's actions in order, the release if it is due. */
export async function performRound<R extends Resource, K extends BaseKnowledge, A extends Action, F>(
  kind: Acting<R, K, A, F>,
  start: RoundStart<R>,
  progress: Progress<R, K>,
  plan: Decided<BasePlan<A>>,
): Promise<Stop | undefined> {
  const { writes } = start;
  // The finalizer goes on just before the first call the SpendLimit admits (or at once when the
  // plan has none): a create refused before it was sent leaves nothing to clean up.
  let finalizerDue = plan.addsFinalizer === true;
  const finalizerFirst = async () => {
    if (!finalizerDue) return;
    finalizerDue = false;
    const written = await addFinalizer(writes, progress);
    progress.object = written.object;
    progress.resource = withIntents(written.resource, progress.intents);
  };
  try {
    for (const action of plan.actions) {
      const gate = await gateSpend(kind, start, progress, action);
      if ("refused" in gate) {
        start.deps.recorder.record(start.object, "Warning", "SpendLimitExceeded", gate.refused, action.type);
        return { spendRefused: { message: gate.refused } };
      }
      await finalizerFirst();
      const failure = await performAction(kind, start, progress, action, gate.room);
      if (failure !== undefined) return { failure };
      // Answered: the room stays on the resource too (the final status), until its cost shows;
      // a SpendLimit re-created forgets none. Until the answer, its intent holds it.
      if (gate.spendRoom !== undefined)
        progress.resource = withRecorded(progress.resource, { spendRoom: gate.spendRoom });
    }
    await finalizerFirst();
    if (plan.release === undefined) return undefined;
    await releaseFinalizer(writes, progress.object, plan.release);
    return { released: true };
  } catch (error) {
    return { interrupted: { error } };
  }
}

/**
 * The SpendLimits' word on one action. A call sent again (its recorded key, while it may still act)
 * is never priced again: it keeps the room its first call took until it settles. A deletion adds no
 * spend: its only spending calls ask again what was admitted when first sent.
 */
async function gateSpend<R extends Resource, K extends BaseKnowledge, A extends Action, F>(
  kind: Acting<R, K, A, F>,
  start: RoundStart<R>,
  progress: Progress<R, K>,
  action: A,
): Promise<SpendGate> {
  const again = resentIntent(progress.intents, action.intent, start.now);
  if (again !== undefined) return { room: again.room };
  if (progress.resource.metadata.deletionTimestamp !== undefined) return { room: undefined };
  return spendGate(
    { spend: kind.spend, doing: (a: A) => doingOf(kind.doing, a) },
    start.deps,
    progress.object,
    {
      action,
      resource: progress.resource,
      knowledge: progress.knowledge,
    },
  );
}

/**
 * One action under its intent: its facts learned as they come; a failed call's failure learned and
 * returned. Not the service's error (a Kubernetes write failed, no room in the budget): thrown.
 */
async function performAction<R extends Resource, K extends BaseKnowledge, A extends Action, F>(
  kind: Acting<R, K, A, F>,
  start: RoundStart<R>,
  progress: Progress<R, K>,
  action: A,
  room: string | undefined,
): Promise<Failure | undefined> {
  const { deps, connection, now } = start;
  const owner = connection && identityOf(connection);
  const failureOf = (error: HostingError) => describeFailedAction(error, kind.doing, action);
  try {
    await underIntent(
      progress,
      action.intent,
      { writes: start.writes, owner, now, room },
      async () => {
        const { object, resource, knowledge } = progress;
        for await (const fact of kind.perform(action, { deps, object, resource, knowledge, connection })) {
          if (!isObjectFact(fact)) progress.knowledge = kind.learn(progress.knowledge, fact);
          else if (fact.type === "recorded") progress.resource = withRecorded(progress.resource, fact.status);
          else if (fact.requestId !== undefined)
            progress.knowledge = { ...progress.knowledge, requestId: fact.requestId };
        }
      },
      (error) => failureOf(error).message,
    );
    return undefined;
  } catch (error) {
    if (!isHostingError(error)) throw error;
    const failure = failureOf(error);
    progress.knowledge = kind.learn(progress.knowledge, { type: "failed", action, failure, error });
    if (failure.requestId !== undefined)
      progress.knowledge = { ...progress.knowledge, requestId: failure.requestId };
    // The key's scopes or projects may have changed: read its identity again next time.
    if (failure.refreshIdentity && connection !== undefined) deps.hosting.forgetIdentity(connection.client);
    deps.recorder.record(start.object, "Warning", failure.reason, failure.message, action.type);
    return failure;
  }
}
