import type { Intent } from "../../api/intents.ts";
import type { EventRecorder, KubeObject } from "../../runtime/index.ts";
import type { Connection } from "../service/hosting-access.ts";
import { identityOf } from "../service/ownership.ts";
import { Reason } from "../service/reasons.ts";
import {
  type Blocking,
  describeIntent,
  endIntent,
  intentsOf,
  ownerMismatch,
  type Recorded,
  type Settlement,
  withIntents,
  withoutIntent,
  withRecorded,
} from "./intents.ts";
import type { BaseKnowledge, Kind, Resource } from "./kind.ts";

/** The parts of a kind that settle its Pending intents. */
type Settling<R extends Resource, K extends BaseKnowledge, F> = Pick<
  Kind<R, unknown, K, never, F, never>,
  "settle" | "learn"
>;

/** What a reconcile settles from: the object and resource it read, what observe found, the connection. */
export interface SettleStart<R, K> {
  deps: { recorder: EventRecorder };
  object: KubeObject;
  resource: R;
  knowledge: K;
  connection: Connection | undefined;
  now: Date;
}

/** What settling left: the knowledge and resource with what settled intents did, the intents as they stand, what still blocks. */
export interface Settled<R, K> {
  knowledge: K;
  /** With the intents as they stand. */
  resource: R;
  intents: Intent[];
  /** Pending intents not settled yet: nothing else is done until they are. */
  blocking: Blocking | undefined;
}

/**
 * Settles each Pending intent from what observe looked up on its input: it acted (its facts are
 * learned and it goes), it did not (NotFound), or it is still being looked up, or can't be told.
 */
export function settleIntents<R extends Resource, K extends BaseKnowledge, F>(
  kind: Settling<R, K, F>,
  start: SettleStart<R, K>,
): Settled<R, K> {
  const { deps, resource, connection, now } = start;
  let { knowledge, resource: settledResource } = start;
  const initial = intentsOf(resource.status);
  let intents = initial;
  const pending = initial.filter((i) => i.state === "Pending");
  const releasing =
    resource.metadata.deletionTimestamp !== undefined && resource.spec.deletionPolicy === "Orphan";
  const paused = resource.spec.suspend === true && resource.metadata.deletionTimestamp === undefined;
  if (pending.length === 0 || releasing || paused)
    return { knowledge, resource: withIntents(resource, intents), intents, blocking: undefined };
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
    const settlement: Settlement<F> = kind.settle?.(intent, knowledge, resource, now) ?? {
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
  return { knowledge, resource: withIntents(settledResource, intents), intents, blocking };
}

function isRecorded(fact: unknown): fact is Recorded {
  return (fact as { type?: unknown }).type === "recorded";
}
