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
