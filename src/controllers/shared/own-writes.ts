import type { KubeObject } from "../../runtime/index.ts";

/**
 * The informer can lag behind the controller's own writes: a reconcile woken by a timer may find
 * the version it just replaced still in the store, and a status patch from it would conflict (or
 * act on stale status). This keeps, per key, the last object the controller wrote and the versions
 * it superseded, so a reconcile starts from the newest copy it knows.
 */
export class OwnWrites {
  readonly #latest = new Map<string, { superseded: Set<string>; object: KubeObject }>();

  /** `written` replaced `before` (a finalizer patch, a status patch). */
  record(key: string, before: KubeObject, written: KubeObject): void {
    const { resourceVersion } = before.metadata;
    if (resourceVersion === undefined || resourceVersion === written.metadata.resourceVersion) return;
    const previous = this.#latest.get(key);
    const superseded = previous?.object === before ? previous.superseded : new Set<string>();
    superseded.add(resourceVersion);
    this.#latest.set(key, { superseded, object: written });
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
}
