/** What a controller remembers of one external object's reads (the object itself aside). */
export interface ReadMemory {
  /** The service answered 404 for the recorded object. */
  gone: boolean;
  driftDueAt: number | undefined;
  readGeneration: number | undefined;
  servedRequest: string | undefined;
  /** A create failed in a way the service may have acted on: look the object up before creating again. */
  uncertainCreate: boolean;
  readySeen: boolean;
}

export function newReadMemory(): ReadMemory {
  return {
    gone: false,
    driftDueAt: undefined,
    readGeneration: undefined,
    servedRequest: undefined,
    uncertainCreate: false,
    readySeen: false,
  };
}

/**
 * What a controller remembers about each resource between reconciles (the external state it last
 * saw, when to look again). Keyed by `namespace/name`; a new UID under the same name starts afresh.
 * Losing it (a restart) costs reads, never correctness.
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

  forget(key: string): void {
    this.#entries.delete(key);
  }
}
