import { z } from "zod";
import type { Logger } from "../telemetry/logger.ts";
import type { WatchMetrics } from "../telemetry/metrics.ts";
import { Backoff, type BackoffOptions, reflectorBackoff } from "./backoff.ts";
import { codeForStatus, isKubeError, KubeApiError } from "./errors.ts";
import type { KubeClient, Query } from "./kube-client.ts";
import {
  apiVersionOf,
  asKubeObject,
  collectionPath,
  type KubeObject,
  objectKey,
  type ResourceType,
  resourceLabel,
} from "./object.ts";
import type { StringPool } from "./string-pool.ts";
import { delay, randomBetween } from "./timers.ts";

/** Where a reflector puts what it lists and watches: an informer's Store, or a cache that keeps less. */
export interface ReflectorSink {
  upsert(object: KubeObject): void;
  remove(object: KubeObject): void;
  /** A fresh list is complete: drop what `inScope` selects that it did not have (`listed` keys). */
  sweep(listed: ReadonlySet<string>, inScope: (object: KubeObject) => boolean): void;
  /**
   * With `changesOnly`: the watch starts over from the present (at start, and after its version
   * expired), so what changed before was not reported; the sink reads again what it holds.
   */
  restarted?(): void;
}

/** Accept headers that make the API server send metadata only (client-go's metadata client). */
const metadataOnly = {
  list: "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1",
  watch: "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1",
} as const;

export interface ReflectorOptions {
  client: KubeClient;
  type: ResourceType;
  store: ReflectorSink;
  /**
   * List and watch metadata only (PartialObjectMetadata): names, versions, labels, finalizers,
   * never a spec or a Secret's data.
   */
  metadataOnly?: boolean;
  /**
   * Report changes from now on, never the objects that exist: no list, only the collection's
   * present resourceVersion (a list of one item's metadata), and a watch from it. For a cache that
   * reads the few objects it needs itself; a relist is a `restarted` call, not a list.
   */
  changesOnly?: boolean;
  logger: Logger;
  metrics: WatchMetrics;
  /** One namespace; all namespaces when undefined. */
  namespace?: string;
  labelSelector?: string;
  /** Items per list page (default 500). */
  pageSize?: number;
  /** Each watch asks the server to close it after a random time in this range (default 300–600 s). */
  watchTimeoutSeconds?: { min: number; max: number };
  /** A watch silent for longer than this is presumed dead (default: its timeout + 30 s). */
  idleTimeoutMs?: number;
  backoff?: BackoffOptions;
  /**
   * Resume: watch from this resourceVersion instead of listing first. The store must already hold
   * the state at that version (e.g. from a previous run); a 410 Gone falls back to a relist.
   */
  resourceVersion?: string;
  /** Applied to every object before it is stored; by default `stripForCache`. */
  transform?: (object: KubeObject) => KubeObject;
  /** Where the stored objects' repeated strings are kept once (see StringPool); none when undefined. */
  strings?: StringPool;
}

const listSchema = z.object({
  apiVersion: z.string().optional(),
  kind: z.string().optional(),
  metadata: z.object({ resourceVersion: z.string(), continue: z.string().optional() }),
  items: z.array(z.unknown()).nullable(),
});

const watchEventSchema = z.object({
  type: z.enum(["ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR"]),
  object: z.unknown(),
});

const bookmarkSchema = z.object({ metadata: z.object({ resourceVersion: z.string() }) });

const watchStatusSchema = z.looseObject({ code: z.number().optional(), message: z.string().optional() });

const idleMarginMs = 30_000;
const shortWatchMs = 1000;

type WatchEnd = "closed" | "gone";

/** Raised (as an abort reason) when a watch stream stays silent past its bound. */
class SilentWatchError extends Error {
  readonly code = "silent_watch";
}

/**
 * Keeps a store equal to the server's objects: paginated list, then watch with bookmarks, resuming
 * from the last resourceVersion; relists on 410 Gone, sweeping what vanished meanwhile; restarts
 * with backoff after any error and when a watch goes silent (a half-open connection).
 */
export class Reflector {
  readonly #options: ReflectorOptions;
  readonly #label: string;
  readonly #backoff: Backoff;
  readonly #stopping = new AbortController();
  #resourceVersion: string | undefined;
  #synced = false;
  #onSynced: Array<() => void> = [];
  #running: Promise<void> | undefined;

  constructor(options: ReflectorOptions) {
    this.#options = options;
    this.#label = resourceLabel(options.type);
    this.#backoff = new Backoff(options.backoff ?? reflectorBackoff);
    this.#resourceVersion = options.resourceVersion;
  }

  hasSynced(): boolean {
    return this.#synced;
  }

  /** Resolves once the store first reflects the server (or at stop). */
  waitForSync(): Promise<void> {
    if (this.#synced || this.#stopping.signal.aborted) return Promise.resolve();
    return new Promise((resolve) => this.#onSynced.push(resolve));
  }

  start(): void {
    this.#running ??= this.#run();
  }

  async stop(): Promise<void> {
    this.#stopping.abort();
    this.#wakeSyncWaiters();
    await this.#running;
  }

  async #run(): Promise<void> {
    const { logger } = this.#options;
    // Every list after the first (or after resuming) is a relist.
    let listed = this.#options.resourceVersion !== undefined;
    while (!this.#stopping.signal.aborted) {
      try {
        if (this.#resourceVersion === undefined) {
          if (listed) this.#options.metrics.relists.inc({ resource: this.#label });
          await this.#list();
          listed = true;
        }
        if ((await this.#watch()) === "gone") this.#expire();
      } catch (error) {
        if (this.#stopping.signal.aborted) break;
        if (isKubeError(error, "gone")) {
          this.#expire();
          continue;
        }
        this.#options.metrics.restarts.inc({ resource: this.#label });
        if (error instanceof SilentWatchError) {
          logger.warn("watch silent past its bound; restarting it");
          continue;
        }
        const wait = this.#backoff.next();
        // The logger already names the resource; the message alone (pino's err would repeat it via its cause).
        logger.warn(
          { error: errorText(error), retryInMs: Math.round(wait) },
          "list/watch failed; retrying after backoff",
        );
        await delay(wait, this.#stopping.signal);
      }
    }
  }

  #expire(): void {
    this.#options.logger.info("resourceVersion expired (410 Gone); relisting");
    this.#resourceVersion = undefined;
  }

  /**
   * Lists page by page (`limit`/`continue`), each page going into the store as it arrives, so no
   * more than one page is held besides the store (a relist never holds a second copy of every
   * object); then sweeps what the list no longer has. A list broken off half way leaves the store
   * with some objects newer than others, as a watch does, and the next list completes it.
   */
  async #list(): Promise<void> {
    if (this.#options.changesOnly) {
      await this.#startFromNow();
      return;
    }
    const { client, type, namespace, labelSelector, store, pageSize = 500 } = this.#options;
    const path = collectionPath(type, namespace);
    const listed = new Set<string>();
    let continueToken: string | undefined;
    let resourceVersion: string;
    do {
      const query: Query = { limit: pageSize, continue: continueToken, labelSelector };
      const page = listSchema.parse(
        await client.call("GET", path, {
          query,
          signal: this.#stopping.signal,
          ...(this.#options.metadataOnly ? { accept: metadataOnly.list } : {}),
        }),
      );
      const kind = page.kind?.replace(/List$/, "") ?? type.kind;
      for (const raw of page.items ?? []) {
        const object = this.#toObject(raw, kind);
        listed.add(objectKey(object));
        store.upsert(object);
      }
      continueToken = page.metadata.continue || undefined;
      resourceVersion = page.metadata.resourceVersion;
    } while (continueToken !== undefined);
    store.sweep(listed, (object) => this.#inScope(object));
    this.#resourceVersion = resourceVersion;
    this.#markSynced();
  }

  /** The collection's present version, from a list of one item's metadata; the watch starts there. */
  async #startFromNow(): Promise<void> {
    const { client, type, namespace, labelSelector } = this.#options;
    const page = listSchema.parse(
      await client.call("GET", collectionPath(type, namespace), {
        query: { limit: 1, labelSelector },
        signal: this.#stopping.signal,
        accept: metadataOnly.list,
      }),
    );
    this.#resourceVersion = page.metadata.resourceVersion;
    this.#options.store.restarted?.();
    this.#markSynced();
  }

  async #watch(): Promise<WatchEnd> {
    const {
      client,
      type,
      namespace,
      labelSelector,
      watchTimeoutSeconds = { min: 300, max: 600 },
    } = this.#options;
    const timeoutSeconds = randomBetween(watchTimeoutSeconds.min, watchTimeoutSeconds.max);
    const idleMs = this.#options.idleTimeoutMs ?? timeoutSeconds * 1000 + idleMarginMs;
    const watching = new AbortController();
    const stop = () => watching.abort();
    this.#stopping.signal.addEventListener("abort", stop, { once: true });
    // A stop between the list and this watch: the listener above came too late to hear it.
    if (this.#stopping.signal.aborted) watching.abort();
    const idle = setTimeout(() => watching.abort(new SilentWatchError()), idleMs);
    const query: Query = {
      watch: 1,
      allowWatchBookmarks: true,
      resourceVersion: this.#resourceVersion,
      timeoutSeconds,
      labelSelector,
    };
    const startedAt = Date.now();
    let events = 0;
    try {
      const path = collectionPath(type, namespace);
      const accept = this.#options.metadataOnly ? metadataOnly.watch : undefined;
      for await (const line of client.stream(path, query, watching.signal, accept)) {
        idle.refresh();
        events += 1;
        if (this.#apply(line) === "gone") return "gone";
      }
      // Like client-go: a watch closed at once with nothing in it means something is wrong; back off.
      if (events === 0 && Date.now() - startedAt < shortWatchMs && !this.#stopping.signal.aborted) {
        throw new KubeApiError("transport", 0, `watch ${this.#label} closed immediately without events`);
      }
      return "closed";
    } catch (error) {
      throw watching.signal.reason instanceof SilentWatchError ? watching.signal.reason : error;
    } finally {
      clearTimeout(idle);
      this.#stopping.signal.removeEventListener("abort", stop);
      watching.abort();
    }
  }

  /** Applies one watch event to the store; returns "gone" for a 410. */
  #apply(line: string): "gone" | undefined {
    const event = watchEventSchema.parse(JSON.parse(line));
    switch (event.type) {
      case "ADDED":
      case "MODIFIED":
      case "DELETED": {
        const object = this.#toObject(event.object, this.#options.type.kind);
        if (event.type === "DELETED") this.#options.store.remove(object);
        else this.#options.store.upsert(object);
        this.#resourceVersion = object.metadata.resourceVersion;
        break;
      }
      case "BOOKMARK":
        this.#resourceVersion = bookmarkSchema.parse(event.object).metadata.resourceVersion;
        break;
      case "ERROR": {
        const status = watchStatusSchema.parse(event.object);
        if (status.code === 410) return "gone";
        const code = status.code ?? 500;
        throw new KubeApiError(
          codeForStatus(code),
          code,
          `watch ${this.#label}: ${status.message ?? "error event"}`,
        );
      }
    }
    this.#markSynced();
    return undefined;
  }

  #toObject(raw: unknown, kind: string | undefined): KubeObject {
    const object = asKubeObject(raw);
    object.apiVersion ??= apiVersionOf(this.#options.type);
    if (kind !== undefined) object.kind ??= kind;
    const kept = (this.#options.transform ?? stripForCache)(object);
    return this.#options.strings?.internObject(kept) ?? kept;
  }

  #inScope(object: KubeObject): boolean {
    return this.#options.namespace === undefined || object.metadata.namespace === this.#options.namespace;
  }

  #markSynced(): void {
    if (this.#synced) return;
    this.#synced = true;
    this.#wakeSyncWaiters();
  }

  #wakeSyncWaiters(): void {
    for (const resolve of this.#onSynced.splice(0)) resolve();
  }
}

/** kubectl's copy of the whole object as last applied: large, and read by no controller. */
const lastApplied = "kubectl.kubernetes.io/last-applied-configuration";

/**
 * What a cache keeps of an object: everything but `metadata.managedFields` (controller-runtime's
 * TransformStripManagedFields) and kubectl's last-applied-configuration annotation, which together
 * are often larger than the rest of the object. Left out by copying, not `delete`: a deleted
 * property turns V8's object into a slow dictionary, some 400 bytes more for each object cached.
 */
export function stripForCache(object: KubeObject): KubeObject {
  const { managedFields, annotations, ...metadata } = object.metadata;
  const applied = annotations !== undefined && lastApplied in annotations;
  if (managedFields === undefined && !applied) return object;
  if (annotations !== undefined) {
    const { [lastApplied]: _, ...kept } = annotations;
    if (Object.keys(kept).length > 0) metadata.annotations = applied ? kept : annotations;
  }
  object.metadata = metadata;
  return object;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
