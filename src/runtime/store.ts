import type { Logger } from "../telemetry/logger.ts";
import { type KubeObject, objectKey } from "./object.ts";

export interface StoreHandlers<T extends KubeObject> {
  add?(object: T): void;
  update?(oldObject: T, newObject: T): void;
  /** Receives the last state the store knew (after a relist sweep, that may be older than the deletion). */
  delete?(object: T): void;
}

/**
 * The informer's cache, keyed `namespace/name`. Handlers run synchronously, in registration order,
 * after the store has changed; a throwing handler is logged and never stops the others.
 */
export class Store<T extends KubeObject = KubeObject> {
  readonly #items = new Map<string, T>();
  readonly #handlers = new Set<StoreHandlers<T>>();
  readonly #logger: Logger;

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  /** Registers handlers; returns the function that removes them. */
  on(handlers: StoreHandlers<T>): () => void {
    this.#handlers.add(handlers);
    return () => this.#handlers.delete(handlers);
  }

  get(key: string): T | undefined {
    return this.#items.get(key);
  }

  list(): T[] {
    return [...this.#items.values()];
  }

  keys(): string[] {
    return [...this.#items.keys()];
  }

  get size(): number {
    return this.#items.size;
  }

  /** Adds or updates; an object at the same resourceVersion as the stored one changes nothing. */
  upsert(object: T): void {
    const key = objectKey(object);
    const old = this.#items.get(key);
    if (old !== undefined && old.metadata.resourceVersion === object.metadata.resourceVersion) return;
    this.#items.set(key, object);
    if (old === undefined) this.#notify((h) => h.add?.(object));
    else this.#notify((h) => h.update?.(old, object));
  }

  remove(object: T): void {
    const key = objectKey(object);
    const old = this.#items.get(key);
    if (old === undefined) return;
    this.#items.delete(key);
    this.#notify((h) => h.delete?.(object));
  }

  /**
   * Makes the store equal a fresh list: upserts every item, then deletes the entries `inScope`
   * selects that the list no longer has (the deletions a broken watch missed).
   */
  replace(items: readonly T[], inScope: (object: T) => boolean = () => true): void {
    const listed = new Set<string>();
    for (const item of items) {
      listed.add(objectKey(item));
      this.upsert(item);
    }
    this.sweep(listed, inScope);
  }

  /** Deletes the entries `inScope` selects whose keys a fresh list (upserted page by page) did not have. */
  sweep(listed: ReadonlySet<string>, inScope: (object: T) => boolean = () => true): void {
    for (const [key, stale] of this.#items) {
      if (!listed.has(key) && inScope(stale)) this.remove(stale);
    }
  }

  #notify(call: (handlers: StoreHandlers<T>) => void): void {
    for (const handlers of this.#handlers) {
      try {
        call(handlers);
      } catch (error) {
        this.#logger.error({ err: error }, "informer event handler threw");
      }
    }
  }
}
