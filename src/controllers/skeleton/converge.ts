import type { Intent } from "../../api/intents.ts";
import { HostingApiError, isHostingError } from "../../hosting/index.ts";
import { isDeferral, type KubeObject } from "../../runtime/index.ts";
import type { ControllerDeps } from "../service/deps.ts";
import { describeFailedAction, type Failure } from "../service/failure.ts";
import type { Connection } from "../service/hosting-access.ts";
import { identityOf } from "../service/ownership.ts";
import { Reason } from "../service/reasons.ts";
import { addFinalizer, type Decided, hasWork, planFor, releaseFinalizer } from "./cleanup.ts";
import {
  type Blocking,
  describeIntent,
  endIntent,
  intentsOf,
  ownerMismatch,
  pendingRecord,
  type Recorded,
  recordIntents,
  settlingPlan,
  withIntent,
  withIntents,
  withoutIntent,
} from "./intents.ts";
import type { Action, BaseKnowledge, BasePlan, Kind, ObjectFact, Resource } from "./kind.ts";
import { parseAgain } from "./parse.ts";

/** Where one reconcile starts acting from. */
export interface ConvergeStart<R, K> {
  deps: ControllerDeps;
  object: KubeObject;
  resource: R;
  knowledge: K;
  connection: Connection | undefined;
  now: Date;
  /** Each status or metadata write the skeleton makes before the final one (its watch event is no news). */
  onWrite?(before: KubeObject, written: KubeObject): void;
}

/** Where it left off: the object (undefined once released), what is known, and the plan whose status is written. */
export interface Converged<R, K, P> {
  object: KubeObject | undefined;
  resource: R;
  knowledge: K;
  /** The plan whose status is written, with status.intents as the final write leaves them. */
  plan: P;
  /** The call the actions stopped at. */
  failure: Failure | undefined;
  /** Not the service's error (a Kubernetes write failed): rethrown once what was learned is kept. */
  interrupted?: { error: unknown };
}

const objectFacts = new Set<string>(["answered", "recorded"] satisfies ObjectFact["type"][]);

function isObjectFact<F>(fact: F | ObjectFact): fact is ObjectFact {
  return objectFacts.has((fact as { type?: unknown }).type as string);
}

/** What one reconcile has come to so far: written, learned, and the intents as they stand. */
interface Progress<R, K> {
  object: KubeObject;
  resource: R;
  knowledge: K;
  intents: Intent[];
}

/** The parts of a kind that carry out its plan. */
type Acting<R extends Resource, K, A extends Action, F> = Pick<
  Kind<R, unknown, K & BaseKnowledge, A, F, BasePlan<A>>,
  "type" | "schema" | "externalId" | "perform" | "learn" | "doing"
>;

/** Why the rounds stopped early. */
type Stop =
  /** A call failed: what it taught is learned, and the plan made after it is written. */
  | { failure: Failure }
  /** Not the service's error (a Kubernetes write failed): rethrown once what was learned is kept. */
  | { interrupted: { error: unknown } }
  /** The finalizer is gone: the object is going away and nothing more is written. */
  | { released: true };

/**
 * Settle Pending intents → plan → perform → learn → plan, for up to `kind.rounds` rounds, stopping
 * at the first failed call. An action with an intent is recorded in status before its call; the
 * intent goes once the call answered, ends Refused on a definite refusal, and stays Pending when the
 * outcome is unknown. While a Pending intent is unsettled nothing else is done (but an Orphan release).
 */
export async function converge<
  R extends Resource,
  M,
  K extends BaseKnowledge,
  A extends Action,
  F,
  P extends BasePlan<A>,
>(kind: Kind<R, M, K, A, F, P>, start: ConvergeStart<R, K>): Promise<Converged<R, K, P>> {
  const { now } = start;
  const settled = settleIntents(kind, start, intentsOf(start.resource.status));
  const progress: Progress<R, K> = {
    object: start.object,
    resource: withIntents(settled.resource, settled.intents),
    knowledge: settled.knowledge,
    intents: settled.intents,
  };
  let plan = planFor(kind, progress.resource, progress.knowledge, now);
  if (settled.blocking !== undefined) plan = settlingPlan(plan, progress, settled.blocking, now);
  let stop: Stop | undefined;
  for (let round = 1; stop === undefined && round <= (kind.rounds ?? 1) && hasWork(plan); round++) {
    stop = await performRound(kind, start, progress, plan);
    // After a failed call the status says what is left, from what the failure taught.
    if (stop === undefined || "failure" in stop)
      plan = planFor(kind, progress.resource, progress.knowledge, now);
  }
  const { intents: _, ...status } = plan.status;
  return {
    object: stop !== undefined && "released" in stop ? undefined : progress.object,
    resource: progress.resource,
    knowledge: progress.knowledge,
    plan: {
      ...plan,
      status: progress.intents.length === 0 ? status : { ...status, intents: progress.intents },
    },
    failure: stop !== undefined && "failure" in stop ? stop.failure : undefined,
    ...(stop !== undefined && "interrupted" in stop ? { interrupted: stop.interrupted } : {}),
  };
}

/** One round: the finalizer if it is due, the plan's actions in order, the release if it is due. */
async function performRound<R extends Resource, K extends BaseKnowledge, A extends Action, F>(
  kind: Acting<R, K, A, F>,
  start: ConvergeStart<R, K>,
  progress: Progress<R, K>,
  plan: Decided<BasePlan<A>>,
): Promise<Stop | undefined> {
  if (plan.addsFinalizer === true) {
    try {
      progress.object = await addFinalizer(start.deps, kind, progress.object);
    } catch (error) {
      return { interrupted: { error } };
    }
    progress.resource = withIntents(
      parseAgain(kind.schema, progress.object, progress.resource),
      progress.intents,
    );
  }
  for (const action of plan.actions) {
    const stop = await performAction(kind, start, progress, action);
    if (stop !== undefined) return stop;
  }
  if (plan.release === undefined) return undefined;
  try {
    await releaseFinalizer(start.deps, kind, progress.object, plan.release);
  } catch (error) {
    return { interrupted: { error } };
  }
  return { released: true };
}

/** One action: its intent recorded first, its facts learned as they come, its failure learned. */
async function performAction<R extends Resource, K extends BaseKnowledge, A extends Action, F>(
  kind: Acting<R, K, A, F>,
  start: ConvergeStart<R, K>,
  progress: Progress<R, K>,
  action: A,
): Promise<Stop | undefined> {
  const { deps, connection, now } = start;
  const call = action.intent;
  const prior = progress.intents;
  try {
    if (call !== undefined) {
      progress.intents = withIntent(prior, pendingRecord(call, connection && identityOf(connection), now));
      progress.object = await recordIntents(
        start.deps.kube,
        kind.type,
        progress.object,
        progress.intents,
        start.onWrite,
      );
      progress.resource = parseAgain(kind.schema, progress.object, progress.resource);
    }
    const { object, resource, knowledge } = progress;
    for await (const fact of kind.perform(action, { deps, object, resource, knowledge, connection })) {
      if (!isObjectFact(fact)) progress.knowledge = kind.learn(progress.knowledge, fact);
      else if (fact.type === "recorded") progress.resource = withRecorded(progress.resource, fact.status);
      else if (fact.requestId !== undefined)
        progress.knowledge = { ...progress.knowledge, requestId: fact.requestId };
    }
    if (call !== undefined) {
      progress.intents = withoutIntent(progress.intents, call.operation);
      progress.resource = withIntents(progress.resource, progress.intents);
    }
    return undefined;
  } catch (error) {
    if (!isHostingError(error)) {
      if (call !== undefined && isDeferral(error)) {
        // The call never left (no room in the budget): its record goes, so no lookup is spent on it.
        progress.intents = prior;
        progress.object = await recordIntents(
          start.deps.kube,
          kind.type,
          progress.object,
          prior,
          start.onWrite,
        ).catch(() => progress.object);
      }
      return { interrupted: { error } };
    }
    const failure = describeFailedAction(error, kind.doing, action);
    if (call !== undefined && refusedForCertain(error)) {
      progress.intents = endIntent(progress.intents, call.operation, "Refused", failure.message);
      progress.resource = withIntents(progress.resource, progress.intents);
    }
    progress.knowledge = kind.learn(progress.knowledge, { type: "failed", action, failure, error });
    if (failure.requestId !== undefined)
      progress.knowledge = { ...progress.knowledge, requestId: failure.requestId };
    // The key's scopes or projects may have changed: read its identity again next time.
    if (failure.refreshIdentity && connection !== undefined) deps.hosting.forgetIdentity(connection.client);
    deps.recorder.record(start.object, "Warning", failure.reason, failure.message, action.type);
    return { failure };
  }
}

/** The resource with status fields a call's answer recorded (written with the final status). */
function withRecorded<R extends Resource>(resource: R, fields: Record<string, unknown>): R {
  return { ...resource, status: { ...resource.status, ...fields } };
}

/** The service's own refusal (a 4xx it answered): nothing was done, and the same key would replay it. */
function refusedForCertain(error: unknown): boolean {
  return error instanceof HostingApiError && error.kind === "terminal";
}

/**
 * Settles each Pending intent from what observe looked up on its input: it acted (its facts are
 * learned and it goes), it did not (NotFound), or it is still being looked up, or can't be told.
 */
function settleIntents<
  R extends Resource,
  M,
  K extends BaseKnowledge,
  A extends Action,
  F,
  P extends BasePlan<A>,
>(
  kind: Kind<R, M, K, A, F, P>,
  start: ConvergeStart<R, K>,
  initial: Intent[],
): { knowledge: K; resource: R; intents: Intent[]; blocking: Blocking | undefined } {
  const { deps, resource, connection, now } = start;
  let { knowledge, resource: settledResource } = start;
  let intents = initial;
  const pending = initial.filter((i) => i.state === "Pending");
  const releasing =
    resource.metadata.deletionTimestamp !== undefined && resource.spec.deletionPolicy === "Orphan";
  const paused = resource.spec.suspend === true && resource.metadata.deletionTimestamp === undefined;
  if (pending.length === 0 || releasing || paused)
    return { knowledge, resource, intents, blocking: undefined };
  const waiting: Blocking["waiting"] = [];
  let stuck: Blocking["stuck"];
  const current = connection && identityOf(connection);
  for (const intent of pending) {
    const mismatch = ownerMismatch(intent, current);
    if (mismatch !== undefined) {
      stuck ??= { reason: Reason.CredentialsChanged, message: mismatch };
      continue;
    }
    if (knowledge.problem !== undefined || connection === undefined) {
      waiting.push({ intent, note: knowledge.problem?.message ?? "waiting for a connection to the service" });
      continue;
    }
    const settlement: ReturnType<NonNullable<typeof kind.settle>> = kind.settle?.(
      intent,
      knowledge,
      resource,
      now,
    ) ?? {
      outcome: "unsettled",
      message: `berth cannot look up what ${describeIntent(intent)} did`,
    };
    switch (settlement.outcome) {
      case "acted":
        for (const fact of settlement.facts) {
          if (isRecorded(fact)) settledResource = withRecorded(settledResource, fact.status);
          else knowledge = kind.learn(knowledge, fact);
        }
        intents = withoutIntent(intents, intent.operation);
        deps.recorder.record(
          start.object,
          "Normal",
          settlement.reason ?? "IntentSettled",
          `${intent.operation} had acted: ${settlement.note}`,
          intent.operation,
        );
        break;
      case "notActed":
        intents = endIntent(intents, intent.operation, "NotFound", settlement.note);
        deps.recorder.record(
          start.object,
          "Normal",
          "IntentSettled",
          `${intent.operation} had not acted: ${settlement.note}`,
          intent.operation,
        );
        break;
      case "looking":
        waiting.push({ intent, note: settlement.note });
        break;
      case "unsettled":
        stuck ??= {
          reason: settlement.reason ?? Reason.IntentUnsettled,
          message: `${describeIntent(intent)}: ${settlement.message}`,
        };
        break;
    }
  }
  const blocking = stuck !== undefined || waiting.length > 0 ? { waiting, stuck } : undefined;
  return { knowledge, resource: settledResource, intents, blocking };
}

function isRecorded(fact: unknown): fact is Recorded {
  return (fact as { type?: unknown }).type === "recorded";
}
