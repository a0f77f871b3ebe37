import { type Intent, mayStillAct } from "../../api/intents.ts";

export { mayStillAct } from "../../api/intents.ts";

import { canonicalJson, HostingApiError, idempotencyKey, isHostingError } from "../../hosting/index.ts";
import { isDeferral } from "../../runtime/index.ts";
import type { Owner } from "../service/ownership.ts";
import { Reason } from "../service/reasons.ts";
import { type ObjectWrites, recordIntents, type Written } from "./object.ts";
import type { Resource } from "./resource.ts";

/** What a planned action that spends or releases carries: the skeleton records it before the call. */
export interface IntentCall {
  operation: string;
  /** Everything that decides what the call acts on; the lookup after an unknown outcome uses only this. */
  input: Record<string, unknown>;
  attempt: number;
  /** The Idempotency-Key: from the resource's UID, the operation, the input and the attempt. */
  key: string;
}

/** Status fields a settled intent records (see the `recorded` object fact). */
export interface Recorded {
  type: "recorded";
  status: Record<string, unknown>;
}

/** How a Pending intent ended, as the kind's lookup on its input tells. */
export type Settlement<F> =
  /** It acted: these facts record what it did (the order it placed, where the app now is). */
  | { outcome: "acted"; facts: (F | Recorded)[]; note: string; reason?: string }
  /** It did not act: the plan decides afresh on the current spec. */
  | { outcome: "notActed"; note: string }
  /** The lookup has not answered yet (it is due, or was spread): wait. */
  | { outcome: "looking"; note: string }
  /** Nothing tells what it did: a person must look (Stalled). */
  | { outcome: "unsettled"; reason?: Reason; message: string };

/** The intents recorded in a status, leniently (an older status has none). */
export function intentsOf(status: { intents?: Intent[] | undefined } | undefined): Intent[] {
  return status?.intents ?? [];
}

/** The open intent of an operation, if any. */
export function pendingIntent(status: { intents?: Intent[] | undefined } | undefined, operation: string) {
  return intentsOf(status).find((i) => i.operation === operation && i.state === "Pending");
}

/**
 * A create may have made the object unheard: its intent is Pending (recorded before it was sent),
 * or this process saw it fail uncertainly. Then the object is looked up by name before anything is
 * created; never otherwise (a same-named object a person made is not this resource's).
 */
export function mayHaveCreated(
  status: { intents?: Intent[] | undefined } | undefined,
  operation: string,
  memory: { uncertainCreate: boolean },
): boolean {
  return memory.uncertainCreate || pendingIntent(status, operation) !== undefined;
}

/**
 * What a Pending create recorded it makes (the name, and an App's project): a create whose outcome
 * is unknown is looked up by that, never by what the spec says now (a rename may have followed).
 */
export function pendingCreate(
  status: { intents?: Intent[] | undefined } | undefined,
  operation: string,
): { name?: string | undefined; projectId?: string | undefined } {
  const intent = pendingIntent(status, operation);
  const input = intent === undefined ? undefined : inputOf<{ name: string; projectId: string }>(intent);
  return {
    name: typeof input?.name === "string" ? input.name : undefined,
    projectId: typeof input?.projectId === "string" ? input.projectId : undefined,
  };
}

/**
 * The call a plan makes for `operation` on `input`: a refused attempt's successor gets a new
 * attempt number and so a new key; after one that did not act (or is pending) the same input
 * keeps its key, so the service replays the call should it have acted after all.
 */
export function intentCall(
  resource: { metadata: { uid?: string | undefined; name?: string | undefined }; status?: unknown },
  operation: string,
  input: Record<string, unknown>,
  /** What the key derives from, when not all of `input` (default: all of it). */
  keyed: Record<string, unknown> = input,
): IntentCall {
  const previous = intentsOf(resource.status as { intents?: Intent[] }).find(
    (i) => i.operation === operation,
  );
  const attempt =
    previous === undefined ? 1 : previous.state === "Refused" ? previous.attempt + 1 : previous.attempt;
  const uid = resource.metadata.uid ?? resource.metadata.name ?? "";
  return { operation, input, attempt, key: idempotencyKey(uid, operation, { ...keyed, attempt }) };
}

/**
 * A create's intent, under the key the create has always had (its refused attempts counted in
 * memory): after an unknown outcome the object is looked for by name (`lookup.ts`).
 */
export function createIntent(
  operation: string,
  input: Record<string, unknown>,
  key: string,
  refused: number | undefined,
): IntentCall {
  return { operation, input, key, attempt: (refused ?? 0) + 1 };
}

/** The input a Pending intent recorded, parsed (undefined when it is not a JSON object). */
export function inputOf<T extends Record<string, unknown>>(intent: Intent): Partial<T> | undefined {
  try {
    const value: unknown = JSON.parse(intent.input);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as T) : undefined;
  } catch {
    return undefined;
  }
}

/** The record written before the call; `room`: what a SpendLimit counts the resource at once it acts. */
export function pendingRecord(
  call: IntentCall,
  owner: Owner | undefined,
  now: Date,
  room?: string | undefined,
): Intent {
  return {
    operation: call.operation,
    key: call.key,
    input: canonicalJson(call.input),
    attempt: call.attempt,
    ...(owner === undefined ? {} : { owner }),
    since: now.toISOString(),
    state: "Pending",
    ...(room === undefined ? {} : { room }),
  };
}

/**
 * The recorded call an action sends again (the same Idempotency-Key, while it may still act): it
 * is not priced again, and keeps the room its first call took (see `round.ts`).
 */
export function resentIntent(intents: readonly Intent[], call: IntentCall | undefined, now: Date) {
  if (call === undefined) return undefined;
  return intents.find((i) => i.key === call.key && i.operation === call.operation && mayStillAct(i, now));
}

/** The resource with status fields a call's answer or a settled intent recorded (written with the final status). */
export function withRecorded<R extends { status?: object | undefined }>(
  resource: R,
  fields: Record<string, unknown>,
): R {
  return { ...resource, status: { ...resource.status, ...fields } };
}

/** `list` with `record` in place of its operation's entry. */
export function withIntent(list: readonly Intent[], record: Intent): Intent[] {
  return [...list.filter((i) => i.operation !== record.operation), record];
}

/** `list` without its operation's entry (the call's result is recorded elsewhere in status). */
export function withoutIntent(list: readonly Intent[], operation: string): Intent[] {
  return list.filter((i) => i.operation !== operation);
}

/** `list` with the operation's entry ended (Refused or NotFound), kept for its attempt number. */
export function endIntent(
  list: readonly Intent[],
  operation: string,
  state: "Refused" | "NotFound",
  message: string,
): Intent[] {
  return list.map((i) => (i.operation === operation ? { ...i, state, message: message.slice(0, 1024) } : i));
}

/** A Pending intent sent with another user's key: only that user's key can look up what it did. */
export function ownerMismatch(intent: Intent, current: Owner | undefined): string | undefined {
  const owner = intent.owner;
  if (owner === undefined || current === undefined || owner.userId === current.userId) return undefined;
  return (
    `the outcome of ${describeIntent(intent)} is unknown, and it was sent with a key of user ${owner.userId} ` +
    `(key ${owner.credential}) while the credentials now resolve to user ${current.userId} (key ${current.credential}); ` +
    `only a key of user ${owner.userId} can look up what it did: restore that key`
  );
}

/** "orderServers (attempt 2, key …) sent at …", for messages. */
export function describeIntent(intent: Intent): string {
  return `${intent.operation} (attempt ${intent.attempt}, Idempotency-Key ${intent.key}) sent at ${intent.since}`;
}

/** The Pending intents a reconcile waits on, and the one that makes a person look (Stalled). */
export interface Blocking {
  waiting: { intent: Intent; note: string }[];
  stuck: { reason: Reason; message: string } | undefined;
}

/**
 * A create whose outcome was unknown, from the lookup by name (`lookup.ts`): the one object it
 * made, none, or several (a person picks). `found` is undefined while not looked up.
 */
export function settleCreate<F>(found: readonly { id: string }[] | undefined, what: string): Settlement<F> {
  if (found === undefined) return { outcome: "looking", note: `looking for the ${what} it may have made` };
  const [single] = found;
  if (single === undefined) return { outcome: "notActed", note: `no ${what} it could have made was found` };
  if (found.length > 1) {
    return {
      outcome: "unsettled",
      reason: Reason.DuplicateCreated,
      message: `${found.length} ${what}s of that name could be its result (${found.map((o) => o.id).join(", ")}): keep one, delete the others at the service`,
    };
  }
  return { outcome: "acted", facts: [], note: `${what} ${single.id} is its result`, reason: "Adopted" };
}

/**
 * The resource as the plan should see it: with the intents as they stand now, written or not. None
 * leaves no field, as in the status the final write leaves and observe read: an earlier version's
 * status (before intents) must look the same to the plan as to observe.
 */
export function withIntents<R extends { status?: { intents?: Intent[] | undefined } | undefined }>(
  resource: R,
  intents: Intent[],
): R {
  if (intents.length > 0) return { ...resource, status: { ...resource.status, intents } };
  if (resource.status?.intents === undefined) return resource;
  const { intents: _, ...status } = resource.status;
  return { ...resource, status };
}

/** The service's own refusal (a 4xx it answered): nothing was done, and the same key would replay it. */
function refusedForCertain(error: unknown): error is HostingApiError {
  return error instanceof HostingApiError && error.kind === "terminal";
}

/** Where an action's intent is kept: the object as written and the intents as they stand. */
export interface IntentProgress<R extends Resource> extends Written<R> {
  intents: Intent[];
}

/**
 * One action under the intent protocol: its intent recorded Pending in status before `call` runs,
 * gone once the call answered, ended Refused on the service's definite refusal (so the next attempt
 * gets a new key), its record taken back when the call never left (no room in the budget), and left
 * Pending when the outcome is unknown. `call`'s error is thrown on. Without an intent, only `call`.
 */
export async function underIntent<R extends Resource>(
  progress: IntentProgress<R>,
  intent: IntentCall | undefined,
  record: { writes: ObjectWrites<R>; owner: Owner | undefined; now: Date; room?: string | undefined },
  call: () => Promise<void>,
  refusal: (error: HostingApiError) => string,
): Promise<void> {
  if (intent === undefined) return await call();
  const prior = progress.intents;
  try {
    progress.intents = withIntent(prior, pendingRecord(intent, record.owner, record.now, record.room));
    const written = await recordIntents(record.writes, progress, progress.intents);
    progress.object = written.object;
    progress.resource = written.resource;
    await call();
    progress.intents = withoutIntent(progress.intents, intent.operation);
    progress.resource = withIntents(progress.resource, progress.intents);
  } catch (error) {
    if (refusedForCertain(error)) {
      progress.intents = endIntent(progress.intents, intent.operation, "Refused", refusal(error));
      progress.resource = withIntents(progress.resource, progress.intents);
    } else if (!isHostingError(error) && isDeferral(error)) {
      // The call never left (no room in the budget): its record goes, so no lookup is spent on it.
      progress.intents = prior;
      progress.object = (await recordIntents(record.writes, progress, prior).catch(() => progress)).object;
    }
    throw error;
  }
}
