import { annotations, finalizer } from "../../api/meta.ts";

/** What a controller remembers of one external object's reads (the object itself aside). */
export interface ReadMemory {
  /** The service answered 404 for the recorded object. */
  gone: boolean;
  driftDueAt: number | undefined;
  readGeneration: number | undefined;
  servedRequest: string | undefined;
  /** A create failed in a way the service may have acted on: look the object up before creating again. */
  uncertainCreate: boolean;
  /** Creates the service refused for certain (see `createAttempt`). */
  refusedCreates: number;
}

/**
 * What a create's key adds after definite refusals: the service keeps a refusal under its key for
 * 24 h, so once its cause is fixed a new attempt needs a new key. Only a certain refusal moves on:
 * after an uncertain failure the same key is sent again. Memory only: after a restart the first key
 * comes back at most once (its refusal replays, and the count moves on; an object it made is found
 * by the lookup first).
 */
export function createAttempt(refused: number): { attempt?: number } {
  return refused === 0 ? {} : { attempt: refused };
}

/** Counts a failed create: a certain refusal (a person must act, the service did not act). */
export function refusalsAfter(refused: number, failure: { stalled: boolean; uncertain: boolean }): number {
  return failure.stalled && !failure.uncertain ? refused + 1 : refused;
}

/** The read memory's own fields of a larger knowledge (what a reconcile keeps for the next). */
export function readMemoryOf(knowledge: ReadMemory): ReadMemory {
  const { gone, driftDueAt, readGeneration, servedRequest, uncertainCreate, refusedCreates } = knowledge;
  return { gone, driftDueAt, readGeneration, servedRequest, uncertainCreate, refusedCreates };
}

/** The parts of a resource met for the first time that memory starts from. */
export interface Met {
  metadata: { finalizers?: string[] | undefined; annotations?: Record<string, string> | undefined };
  status?: { intents?: unknown } | undefined;
}

/**
 * A resource last written by a release that kept no intents (before status.intents and
 * berth.dev/owned) and carrying berth's finalizer: that release added it before its first create,
 * so a create may have acted unheard and is looked up once. Today's releases add the finalizer only
 * just before an admitted call and record each create as an intent, so nothing else is inferred
 * from the finalizer (it says nothing of a same-named object a person made).
 */
export function writtenWithoutIntents(met: Met): boolean {
  return (
    (met.metadata.finalizers ?? []).includes(finalizer) &&
    met.metadata.annotations?.[annotations.owned] === undefined &&
    met.status?.intents === undefined
  );
}

/**
 * The memory of a resource this process meets for the first time: a create whose answer no one
 * heard is known by its Pending intent, which status and the berth.dev/owned annotation keep across
 * restarts and restores; only an object from a release without intents is looked up on its
 * finalizer (`writtenWithoutIntents`).
 */
export function newReadMemory(met?: Met): ReadMemory {
  return {
    gone: false,
    driftDueAt: undefined,
    readGeneration: undefined,
    servedRequest: undefined,
    uncertainCreate: met !== undefined && writtenWithoutIntents(met),
    refusedCreates: 0,
  };
}

/**
 * What a controller remembers about each resource between reconciles (the external state it last
 * saw, when to look again). Keyed by `namespace/name`; a new UID under the same name starts afresh.
 * Losing it (a restart) costs reads, never correctness. Only the skeleton writes it, once a reconcile.
 */
export class Memory<T> {
  readonly #entries = new Map<string, { uid: string; value: T }>();
  readonly #create: () => T;

  constructor(create: () => T) {
    this.#create = create;
  }

  get(key: string, uid: string): T {
    const entry = this.#entries.get(key);
    if (entry !== undefined && entry.uid === uid) return entry.value;
    const value = this.#create();
    this.#entries.set(key, { uid, value });
    return value;
  }

  set(key: string, uid: string, value: T): void {
    this.#entries.set(key, { uid, value });
  }

  forget(key: string): void {
    this.#entries.delete(key);
  }
}
