import type { Logger } from "../telemetry/logger.ts";
import type { WatchMetrics } from "../telemetry/metrics.ts";
import { Backoff, type BackoffOptions } from "./backoff.ts";
import type { Source } from "./controller.ts";
import { isKubeError } from "./errors.ts";
import type { ObjectCache } from "./informer.ts";
import type { KubeClient } from "./kube-client.ts";
import {
  apiVersionOf,
  asKubeObject,
  type KubeObject,
  type ObjectMeta,
  objectKey,
  objectPath,
  parseKey,
  type ResourceType,
} from "./object.ts";
import { Reflector, type ReflectorOptions, type ReflectorSink, stripForCache } from "./reflector.ts";
import { Slots } from "./slots.ts";
import type { StoreHandlers } from "./store.ts";

export interface DemandCacheOptions
  extends Pick<ReflectorOptions, "pageSize" | "watchTimeoutSeconds" | "idleTimeoutMs" | "backoff"> {
  client: KubeClient;
  type: ResourceType;
  logger: Logger;
  metrics: WatchMetrics;
  /** The namespaces to watch; all namespaces when empty or undefined. */
  namespaces?: readonly string[];
  /** Also keep the objects whose metadata this selects, asked for or not (e.g. those carrying a finalizer of ours). */
  hold?: (metadata: ObjectMeta) => boolean;
  /** How long an object no one asks for any more is kept (default 60 s). */
  releaseAfterMs?: number;
  /** Reads in flight at most (default 8). */
  maxReads?: number;
  /** Retries of a failed read (default 1 s doubling to 1 min). */
  readBackoff?: BackoffOptions;
}

type State = "unknown" | "present" | "absent";

interface Entry {
  state: State;
  /** The whole object, while present. */
  object: KubeObject | undefined;
  /** Someone depends on it (see `demand`). */
  demanded: boolean;
  /** Its metadata is selected by `hold`. */
  held: boolean;
  /** Since when (ms) neither demanded nor held; undefined while it is. */
  idleSince: number | undefined;
  /** The resourceVersion the metadata watch last reported ("" once deleted). */
  seen: string | undefined;
  reading: Promise<void> | undefined;
  /** The metadata watch reported a change while a read was under way. */
  stale: boolean;
  /** Why the last read failed. */
  error: unknown;
  retry: NodeJS.Timeout | undefined;
}

type Event = { add: KubeObject } | { update: [KubeObject, KubeObject] } | { delete: KubeObject };

const defaultReadBackoff: BackoffOptions = {
  initialMs: 1000,
  maxMs: 60_000,
  factor: 2,
  jitter: 0.2,
  resetAfterMs: 120_000,
};

export class DemandCacheError extends Error {
  readonly code = "object_unreadable";
}

/**
 * A cache of one resource type that holds only the objects asked for. The whole object is read
 * (GET) only for the keys someone `demand`s or `settle`s, or whose metadata `hold` selects; a
 * metadata-only watch from the present (names, versions, finalizers: never a spec or a Secret's
 * data, and no list of what exists) says when one of them changes or goes, and it is read again.
 * Everything else passes by: nothing of it is kept or listed. When the watch must start over (its
 * version expired), what the cache holds is read again. What no one asks for any more is let go
 * after `releaseAfterMs`.
 *
 * `on` reports every object entering, changing in and leaving the cache (a controller whose primary
 * objects these are); `changes` only what changed at the API server, not first reads and
 * releases (a dependant's watch: nothing changed that it could act on).
 */
export class DemandCache implements ObjectCache {
  readonly type: ResourceType;
  readonly #options: DemandCacheOptions;
  readonly #entries = new Map<string, Entry>();
  readonly #reflectors: Reflector[];
  readonly #all = new Set<StoreHandlers<KubeObject>>();
  readonly #changes = new Set<StoreHandlers<KubeObject>>();
  readonly #demandSources: Source[] = [];
  readonly #slots: Slots;
  readonly #backoff: Backoff;
  readonly #stopping = new AbortController();
  /** Resolves once every watch has its starting version: a read before it could miss a change. */
  readonly #watching: Promise<void>;
  #releaseTimer: NodeJS.Timeout | undefined;
  #syncing: Promise<void> | undefined;
  #synced = false;

  constructor(options: DemandCacheOptions) {
    const { namespaces, ...shared } = options;
    this.type = options.type;
    this.#options = options;
    this.#slots = new Slots(options.maxReads ?? 8);
    this.#backoff = new Backoff(options.readBackoff ?? defaultReadBackoff);
    const scopes =
      namespaces === undefined || namespaces.length === 0 ? [undefined] : [...new Set(namespaces)];
    this.#reflectors = scopes.map(
      (namespace) =>
        new Reflector({
          ...shared,
          store: this.#sink(namespace),
          metadataOnly: true,
          changesOnly: true,
          logger: options.logger.child({ resource: options.type.plural, namespace: namespace ?? "*" }),
          ...(namespace === undefined ? {} : { namespace }),
        }),
    );
    this.#watching = Promise.all(this.#reflectors.map((r) => r.waitForSync())).then(() => undefined);
  }

  /** The demand comes from `source`'s objects: the cache is synced once it is and their reads are done. */
  dependsOn(source: Source): void {
    this.#demandSources.push(source);
  }

  /** Someone depends on `key`: read it now (if not known yet) and keep it current. */
  demand(key: string): void {
    const entry = this.#entry(key);
    entry.demanded = true;
    entry.idleSince = undefined;
    if (entry.state === "unknown" && entry.reading === undefined && entry.retry === undefined) {
      void this.#read(key, entry);
    }
  }

  /** No one depends on `key` any more: it is let go after `releaseAfterMs`, unless held. */
  release(key: string): void {
    const entry = this.#entries.get(key);
    if (entry === undefined) return;
    entry.demanded = false;
    this.#markIdle(entry);
  }

  /**
   * Resolves once each key is known: read, or known not to exist. A key nobody demands is read too
   * and kept for `releaseAfterMs`. Rejects with a DemandCacheError when one could not be read.
   */
  async settle(keys: Iterable<string>): Promise<void> {
    const entries = [...keys].map((key) => {
      const entry = this.#entries.get(key) ?? this.#entry(key);
      const reading = entry.reading ?? (entry.state === "unknown" ? this.#read(key, entry) : undefined);
      return { key, entry, reading };
    });
    await Promise.all(entries.map(({ reading }) => reading));
    const failed = entries.find(({ entry }) => entry.state === "unknown");
    if (failed === undefined) return;
    const why = failed.entry.error instanceof Error ? failed.entry.error.message : "not read yet";
    throw new DemandCacheError(`could not read ${this.type.plural} ${failed.key}: ${why}`, {
      cause: failed.entry.error,
    });
  }

  get(key: string): KubeObject | undefined {
    const entry = this.#entries.get(key);
    return entry?.state === "present" ? entry.object : undefined;
  }

  list(): KubeObject[] {
    const objects: KubeObject[] = [];
    for (const entry of this.#entries.values()) if (entry.object !== undefined) objects.push(entry.object);
    return objects;
  }

  /** How many keys the cache knows of (present, absent or being read): for tests and benchmarks. */
  get size(): number {
    return this.#entries.size;
  }

  on(handlers: StoreHandlers<KubeObject>): () => void {
    this.#all.add(handlers);
    return () => this.#all.delete(handlers);
  }

  /** The cache as a dependant watches it: changes at the API server only. */
  changes(): Source {
    return {
      list: () => this.list(),
      waitForSync: () => this.waitForSync(),
      on: (handlers) => {
        this.#changes.add(handlers);
        return () => this.#changes.delete(handlers);
      },
    };
  }

  hasSynced(): boolean {
    return this.#synced;
  }

  waitForSync(): Promise<void> {
    this.#syncing ??= this.#sync();
    return this.#syncing;
  }

  start(): void {
    for (const reflector of this.#reflectors) reflector.start();
    const every = this.#options.releaseAfterMs ?? 60_000;
    this.#releaseTimer ??= setInterval(() => this.releaseIdle(), every);
    this.#releaseTimer.unref();
    void this.waitForSync();
  }

  async stop(): Promise<void> {
    this.#stopping.abort();
    clearInterval(this.#releaseTimer);
    for (const entry of this.#entries.values()) clearTimeout(entry.retry);
    await Promise.all(this.#reflectors.map((r) => r.stop()));
    await Promise.all([...this.#entries.values()].map((entry) => entry.reading));
  }

  /** Lets go of what has been neither demanded nor held for `releaseAfterMs` (run periodically). */
  releaseIdle(now = Date.now()): void {
    const after = this.#options.releaseAfterMs ?? 60_000;
    for (const [key, entry] of this.#entries) {
      if (entry.idleSince === undefined || entry.reading !== undefined || now - entry.idleSince < after)
        continue;
      clearTimeout(entry.retry);
      this.#entries.delete(key);
      if (entry.object !== undefined) this.#emit({ delete: entry.object }, false);
    }
  }

  async #sync(): Promise<void> {
    await this.#watching;
    await Promise.all(this.#demandSources.map((source) => source.waitForSync()));
    // The reads their objects asked for; one that failed is read again when it is used.
    await Promise.all([...this.#entries.values()].map((entry) => entry.reading));
    this.#synced = true;
  }

  /** What one namespace's watch (or the cluster's) reports goes here. */
  #sink(namespace: string | undefined): ReflectorSink {
    // Reads wait for every watch's first version, so none was made before it: nothing to read again.
    let first = true;
    return {
      upsert: (object) => this.#seen(object),
      remove: (object) => this.#gone(object),
      // A changes-only watch lists nothing, so it never sweeps.
      sweep: () => undefined,
      restarted: () => {
        if (!first) this.#readAgain(namespace);
        first = false;
      },
    };
  }

  /** The watch starts over from the present: what it holds may have changed unseen meanwhile. */
  #readAgain(namespace: string | undefined): void {
    for (const [key, entry] of this.#entries) {
      if (namespace !== undefined && parseKey(key).namespace !== namespace) continue;
      entry.seen = undefined;
      void this.#read(key, entry);
    }
  }

  #entry(key: string): Entry {
    const existing = this.#entries.get(key);
    if (existing !== undefined) return existing;
    const entry: Entry = {
      state: "unknown",
      object: undefined,
      demanded: false,
      held: false,
      idleSince: Date.now(),
      seen: undefined,
      reading: undefined,
      stale: false,
      error: undefined,
      retry: undefined,
    };
    this.#entries.set(key, entry);
    return entry;
  }

  #markIdle(entry: Entry): void {
    if (entry.demanded || entry.held) entry.idleSince = undefined;
    else entry.idleSince ??= Date.now();
  }

  #hold(entry: Entry, metadata: ObjectMeta | undefined): void {
    entry.held = metadata !== undefined && (this.#options.hold?.(metadata) ?? false);
    this.#markIdle(entry);
  }

  /** The metadata watch saw an object added or changed. */
  #seen(partial: KubeObject): void {
    const key = objectKey(partial);
    const known = this.#entries.get(key);
    if (known === undefined && !(this.#options.hold?.(partial.metadata) ?? false)) return;
    const entry = known ?? this.#entry(key);
    this.#hold(entry, partial.metadata);
    const version = partial.metadata.resourceVersion ?? "";
    entry.seen = version;
    if (entry.state === "present" && entry.object?.metadata.resourceVersion === version) return;
    void this.#read(key, entry);
  }

  /** The metadata watch saw an object deleted. */
  #gone(partial: KubeObject): void {
    const entry = this.#entries.get(objectKey(partial));
    if (entry === undefined) return;
    entry.seen = "";
    if (entry.reading !== undefined) {
      entry.stale = true;
      return;
    }
    this.#settleAs(entry, undefined);
  }

  /** Reads the object; a change reported meanwhile reads it once more. Never rejects. */
  #read(key: string, entry: Entry): Promise<void> {
    if (entry.reading !== undefined) {
      entry.stale = true;
      return entry.reading;
    }
    clearTimeout(entry.retry);
    entry.retry = undefined;
    entry.reading = this.#readUntilCurrent(key, entry).finally(() => {
      entry.reading = undefined;
    });
    return entry.reading;
  }

  async #readUntilCurrent(key: string, entry: Entry): Promise<void> {
    let again = true;
    while (again) {
      entry.stale = false;
      const result = await this.#get(key);
      if (this.#stopping.signal.aborted) return;
      if ("error" in result) {
        this.#failed(key, entry, result.error);
        return;
      }
      this.#settleAs(entry, result.object);
      again = entry.stale && (result.object?.metadata.resourceVersion ?? "") !== entry.seen;
    }
  }

  async #get(key: string): Promise<{ object: KubeObject | undefined } | { error: unknown }> {
    await this.#watching;
    await this.#slots.take();
    try {
      const path = objectPath(this.type, parseKey(key));
      const raw = await this.#options.client.call("GET", path, { signal: this.#stopping.signal });
      const object = asKubeObject(raw);
      object.apiVersion ??= apiVersionOf(this.type);
      if (this.type.kind !== undefined) object.kind ??= this.type.kind;
      return { object: stripForCache(object) };
    } catch (error) {
      return isKubeError(error, "not_found") ? { object: undefined } : { error };
    } finally {
      this.#slots.give();
    }
  }

  /** What a read (or a deletion) found: records it and tells the handlers what changed. */
  #settleAs(entry: Entry, object: KubeObject | undefined): void {
    const before = entry.state;
    const old = entry.object;
    entry.error = undefined;
    entry.state = object === undefined ? "absent" : "present";
    entry.object = object;
    this.#hold(entry, object?.metadata);
    if (object === undefined) {
      if (old !== undefined) this.#emit({ delete: old }, true);
    } else if (old === undefined) {
      // First read: new to the cache, not a change at the API server.
      this.#emit({ add: object }, before === "absent");
    } else if (old.metadata.resourceVersion !== object.metadata.resourceVersion) {
      this.#emit({ update: [old, object] }, true);
    }
  }

  #failed(key: string, entry: Entry, error: unknown): void {
    entry.error = error;
    this.#options.logger.warn(
      { resource: this.type.plural, key, error: error instanceof Error ? error.message : String(error) },
      "read failed; retrying after backoff",
    );
    if (!entry.demanded && !entry.held) return;
    entry.retry = setTimeout(() => {
      entry.retry = undefined;
      void this.#read(key, entry);
    }, this.#backoff.next());
    entry.retry.unref();
  }

  #emit(event: Event, change: boolean): void {
    const targets = change ? [...this.#all, ...this.#changes] : [...this.#all];
    for (const handlers of targets) {
      try {
        if ("add" in event) handlers.add?.(event.add);
        else if ("update" in event) handlers.update?.(...event.update);
        else handlers.delete?.(event.delete);
      } catch (error) {
        this.#options.logger.error({ err: error }, "cache event handler threw");
      }
    }
  }
}
