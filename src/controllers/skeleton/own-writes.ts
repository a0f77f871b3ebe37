import { type KubeObject, objectKey, type StoreHandlers } from "../../runtime/index.ts";

/**
 * The informer can lag behind the controller's own writes: a reconcile woken by a timer may find
 * the version it just replaced still in the store, and a status patch from it would conflict (or
 * act on stale status). This keeps, per key, the last object the controller wrote and the versions
 * it superseded, so a reconcile starts from the newest copy it knows; the store's copy takes over
 * as soon as it shows a version the controller did not supersede, so each object is held once.
 */
interface OwnWritesStore {
  on(handlers: StoreHandlers<KubeObject>): () => void;
  get(key: string): KubeObject | undefined;
}

export class OwnWrites {
  readonly #latest = new Map<string, { superseded: Set<string>; object: KubeObject }>();
  readonly #store: OwnWritesStore | undefined;

  /** Follows `store` (the primary informer) to drop each write once the store caught up with it. */
  constructor(store?: OwnWritesStore) {
    this.#store = store;
    store?.on({
      update: (_, object) => this.#seen(objectKey(object), object),
      delete: (object) => this.forget(objectKey(object)),
    });
  }

  /** `written` replaced `before` (a finalizer patch, a status patch); false when it is the same version. */
  record(key: string, before: KubeObject, written: KubeObject): boolean {
    const { resourceVersion } = before.metadata;
    if (resourceVersion === undefined || resourceVersion === written.metadata.resourceVersion) return false;
    // The write's own watch event came before its answer: the store holds it already.
    if (this.#store?.get(key)?.metadata.resourceVersion === written.metadata.resourceVersion) {
      this.#latest.delete(key);
      return true;
    }
    const previous = this.#latest.get(key);
    const superseded = previous?.object === before ? previous.superseded : new Set<string>();
    superseded.add(resourceVersion);
    this.#latest.set(key, { superseded, object: written });
    return true;
  }

  /** The stored object, or this controller's newer write of it while the store still shows an older one. */
  freshest(key: string, stored: KubeObject): KubeObject {
    const latest = this.#latest.get(key);
    if (latest === undefined) return stored;
    const version = stored.metadata.resourceVersion;
    if (version !== undefined && latest.superseded.has(version)) return latest.object;
    this.#latest.delete(key);
    return stored;
  }

  forget(key: string): void {
    this.#latest.delete(key);
  }

  #seen(key: string, stored: KubeObject): void {
    if (this.#latest.has(key)) this.freshest(key, stored);
  }
}
