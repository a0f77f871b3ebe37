import type { Logger } from "../telemetry/logger.ts";
import type { ControllerMetrics, WorkqueueMetrics } from "../telemetry/metrics.ts";
import type { WorkProgress } from "./health.ts";
import { type KubeObject, objectKey, parseKey } from "./object.ts";
import { applyOutcome, isDeferral, Outcome } from "./outcome.ts";
import { listedPriority, updatePriority } from "./priority.ts";
import type { RateLimiter } from "./rate-limiter.ts";
import { Slots } from "./slots.ts";
import type { StoreHandlers } from "./store.ts";
import { WorkerHold } from "./worker-hold.ts";
import { type QueuePriority, WorkQueue } from "./workqueue.ts";

export interface ReconcileRequest {
  /** `namespace/name`, the informer store's key. */
  key: string;
  namespace: string | undefined;
  name: string;
}

export interface ReconcileContext {
  logger: Logger;
  /** Aborted when the controller must stop at once (leadership lost); a graceful stop leaves it alone. */
  signal: AbortSignal;
  /**
   * This reconcile wrote the object (its status, a finalizer) and got back `written`: the watch
   * event of that resourceVersion is the controller's own news and wakes no reconcile.
   */
  wrote(written: KubeObject): void;
  /**
   * Awaits `answer` (a call to another service) without holding a worker: other keys are worked on
   * meanwhile, and this reconcile goes on ahead of new work once it comes.
   */
  whileWaiting<T>(answer: Promise<T>): Promise<T>;
}

/** Reads the object from the informer by key (level-triggered) and says what should happen next. */
export type Reconciler = (request: ReconcileRequest, context: ReconcileContext) => Promise<Outcome>;

/** What a controller watches: an Informer, or anything with its subscription surface. */
export interface Source {
  on(handlers: StoreHandlers<KubeObject>): () => void;
  list(): KubeObject[];
  waitForSync(): Promise<void>;
}

/** `source` with only the updates `changed` says are news; adds and deletes all pass. */
export function updatesWhen(
  source: Source,
  changed: (oldObject: KubeObject, newObject: KubeObject) => boolean,
): Source {
  return {
    list: () => source.list(),
    waitForSync: () => source.waitForSync(),
    on: (handlers) =>
      source.on({
        ...handlers,
        update: (oldObject, newObject) => {
          if (changed(oldObject, newObject)) handlers.update?.(oldObject, newObject);
        },
      }),
  };
}

/** Maps a changed related object to the keys of the primary objects to reconcile. */
export type MapToKeys = (object: KubeObject) => readonly string[];

export interface ControllerOptions {
  name: string;
  /** The primary objects (usually an Informer): every change to one enqueues its key. */
  informer: Source;
  reconcile: Reconciler;
  logger: Logger;
  metrics: { controller: ControllerMetrics; workqueue: WorkqueueMetrics };
  /** Workers running reconciles in parallel (never two on one key); default 1. */
  concurrency?: number;
  /**
   * Reconciles begun at once, counting those whose worker was given back while they wait on an
   * answer (`whileWaiting`); default `concurrency`.
   */
  maxInFlight?: number;
  rateLimiter?: RateLimiter;
  /** Epoch ms; injectable for tests (default Date.now). */
  now?: () => number;
  /** See WorkQueueOptions.backgroundAgingMs. */
  backgroundAgingMs?: number;
}

interface Watched {
  informer: Source;
  map: MapToKeys;
}

/**
 * resourceVersions a key's reconciles wrote whose watch events have not arrived yet: a reconcile with
 * a call under its intent writes up to six (annotation and status before the call, finalizer,
 * annotation and status at the end).
 */
const ownWritesPerKey = 8;

/** N workers draining a work queue fed by informers; one reconcile per key at a time. */
export class Controller {
  readonly name: string;
  readonly queue: WorkQueue;
  readonly #options: ControllerOptions;
  readonly #logger: Logger;
  readonly #watched: Watched[];
  readonly #unsubscribe: Array<() => void> = [];
  readonly #abort = new AbortController();
  /** Per key, the resourceVersions its reconciles wrote, until their watch events arrive. */
  readonly #ownWrites = new Map<string, string[]>();
  /** Per key being reconciled, the primary updates that arrived meanwhile. */
  readonly #arrivedDuring = new Map<string, Array<{ version: string; priority: QueuePriority }>>();
  #workers = new Slots(1);
  #dispatching: Promise<void> = Promise.resolve();
  #active = 0;
  #lastProgressAt: number;

  constructor(options: ControllerOptions) {
    this.name = options.name;
    this.#options = options;
    this.#logger = options.logger.child({ controller: options.name });
    this.#lastProgressAt = this.#now();
    this.queue = new WorkQueue({
      name: options.name,
      metrics: options.metrics.workqueue,
      ...(options.rateLimiter ? { rateLimiter: options.rateLimiter } : {}),
      ...(options.backgroundAgingMs === undefined ? {} : { backgroundAgingMs: options.backgroundAgingMs }),
    });
    this.#watched = [{ informer: options.informer, map: (object) => [objectKey(object)] }];
  }

  /** Also reconcile the primaries `map` names whenever an object of `informer` changes (call before start). */
  watch(informer: Source, map: MapToKeys): this {
    this.#watched.push({ informer, map });
    return this;
  }

  /**
   * Subscribes to the informers, waits for them to sync, then starts the workers. What a source
   * announces before it synced (its initial list) is background work, but for primaries with a
   * change waiting (listedPriority); after, an added or deleted object and the primaries a related
   * change maps to are changes; an update a person made (updatePriority) is one at any time. The
   * queue hands changes out first.
   */
  async start(): Promise<void> {
    const primary = this.#options.informer;
    const primarySynced = syncFlag(primary);
    this.#unsubscribe.push(
      primary.on({
        add: (object) =>
          this.queue.add(objectKey(object), primarySynced.synced ? "change" : listedPriority(object)),
        // A person's change is one whenever it arrives, also while the initial list syncs.
        update: (oldObject, object) => this.#primaryUpdated(object, updatePriority(oldObject, object)),
        delete: (object) => {
          this.#ownWrites.delete(objectKey(object));
          this.queue.add(objectKey(object), "change");
        },
      }),
    );
    for (const { informer, map } of this.#watched.slice(1)) {
      const synced = syncFlag(informer);
      const enqueue = (object: KubeObject) => {
        for (const key of map(object)) this.queue.add(key, synced.priority());
      };
      this.#unsubscribe.push(
        informer.on({
          add: enqueue,
          update: (oldObject, newObject) => {
            enqueue(oldObject);
            enqueue(newObject);
          },
          delete: enqueue,
        }),
      );
    }
    // Objects the primary informer already holds were announced before we subscribed.
    for (const object of primary.list()) this.queue.add(objectKey(object), listedPriority(object));
    await Promise.all(this.#watched.map(({ informer }) => informer.waitForSync()));
    if (this.queue.shuttingDown) return;
    const concurrency = this.#concurrency;
    this.#lastProgressAt = this.#now();
    this.#options.metrics.controller.maxConcurrentReconciles.set({ controller: this.name }, concurrency);
    this.#workers = new Slots(concurrency);
    this.#dispatching = this.#dispatch();
    this.#logger.info(
      { concurrency, maxInFlight: this.#options.maxInFlight ?? concurrency },
      "controller started",
    );
  }

  /** For the liveness check: keys waiting, and when a worker last took or finished one. */
  progress(): WorkProgress {
    return { name: this.name, waiting: this.queue.length, lastProgressAt: this.#lastProgressAt };
  }

  get #concurrency(): number {
    return this.#options.concurrency ?? 1;
  }

  #now(): number {
    return this.#options.now?.() ?? Date.now();
  }

  /** True while a reconcile runs or a key waits in the queue (a delayed requeue is not work yet). */
  busy(): boolean {
    return this.#active > 0 || this.queue.length > 0;
  }

  /** Stops taking work and waits for the reconciles in flight to finish. */
  async stop(): Promise<void> {
    this.#unsubscribeAll();
    await this.queue.shutDownWithDrain();
    await this.#dispatching;
  }

  /** Stops at once: no more work, and in-flight reconciles see their signal aborted. */
  abort(): void {
    this.#unsubscribeAll();
    this.queue.shutDown();
    this.#abort.abort();
  }

  #unsubscribeAll(): void {
    for (const unsubscribe of this.#unsubscribe.splice(0)) unsubscribe();
  }

  /**
   * A primary object changed: news, unless this controller wrote that version itself. A change that
   * arrives while its key is reconciled is judged when the reconcile ends, since the write's answer
   * and its watch event race.
   */
  #primaryUpdated(object: KubeObject, priority: QueuePriority): void {
    const key = objectKey(object);
    const version = object.metadata.resourceVersion;
    if (version === undefined) {
      this.queue.add(key, priority);
      return;
    }
    const during = this.#arrivedDuring.get(key);
    if (during !== undefined) during.push({ version, priority });
    else if (!this.#takeOwnWrite(key, version)) this.queue.add(key, priority);
  }

  #recordOwnWrite(key: string, version: string | undefined): void {
    if (version === undefined) return;
    const versions = this.#ownWrites.get(key) ?? [];
    versions.push(version);
    if (versions.length > ownWritesPerKey) versions.shift();
    this.#ownWrites.set(key, versions);
  }

  /** True (and forgotten) when `version` of `key` is one this controller wrote. */
  #takeOwnWrite(key: string, version: string): boolean {
    const versions = this.#ownWrites.get(key);
    const index = versions?.indexOf(version) ?? -1;
    if (versions === undefined || index < 0) return false;
    versions.splice(index, 1);
    if (versions.length === 0) this.#ownWrites.delete(key);
    return true;
  }

  /**
   * Takes keys while a worker and a place in flight are free. A reconcile holds its worker while it
   * works, not while it waits on an answer (`whileWaiting`): many slow calls cost no worker.
   */
  async #dispatch(): Promise<void> {
    const inFlight = new Slots(this.#options.maxInFlight ?? this.#concurrency);
    const running = new Set<Promise<void>>();
    for (;;) {
      await inFlight.take();
      // The key first: no worker sits idle while the queue is empty.
      const key = await this.queue.get();
      if (key === undefined) break;
      await this.#workers.take();
      const done = this.#process(key).finally(() => {
        inFlight.give();
        running.delete(done);
      });
      running.add(done);
    }
    await Promise.all(running);
  }

  async #process(key: string): Promise<void> {
    const { metrics } = this.#options;
    const labels = { controller: this.name };
    const hold = new WorkerHold(this.#workers, (holding) =>
      holding ? metrics.controller.activeWorkers.inc(labels) : metrics.controller.activeWorkers.dec(labels),
    );
    metrics.controller.activeWorkers.inc(labels);
    this.#active += 1;
    this.#lastProgressAt = this.#now();
    const endTimer = metrics.controller.reconcileTime.startTimer(labels);
    this.#arrivedDuring.set(key, []);
    const outcome = await this.#reconcileOne(key, hold);
    const arrived = this.#arrivedDuring.get(key) ?? [];
    this.#arrivedDuring.delete(key);
    // Added while processing: the key runs again once done.
    for (const { priority } of arrived.filter(({ version }) => !this.#takeOwnWrite(key, version)))
      this.queue.add(key, priority);
    endTimer();
    applyOutcome(outcome, {
      controller: this.name,
      key,
      priority: this.queue.processingPriority(key) ?? "change",
      queue: this.queue,
      metrics: metrics.controller,
      logger: this.#logger,
    });
    this.queue.done(key);
    this.#active -= 1;
    this.#lastProgressAt = this.#now();
    hold.end();
  }

  async #reconcileOne(key: string, hold: WorkerHold): Promise<Outcome> {
    const { namespace, name } = parseKey(key);
    const parent = this.#logger;
    let logger: Logger | undefined;
    try {
      return await this.#options.reconcile(
        { key, namespace, name },
        {
          // Made when first used: a pino child costs more than most reconciles that never log.
          get logger() {
            logger ??= parent.child({ key });
            return logger;
          },
          signal: this.#abort.signal,
          wrote: (written) => this.#recordOwnWrite(key, written.metadata.resourceVersion),
          whileWaiting: (answer) => hold.whileWaiting(answer),
        },
      );
    } catch (error) {
      return isDeferral(error) ? Outcome.deferred(error.deferMs) : Outcome.error(error);
    }
  }
}

/** Whether `source` has synced: until then, what it announces is its initial list (background work). */
function syncFlag(source: Source): { readonly synced: boolean; priority(): QueuePriority } {
  const flag = {
    synced: false,
    priority: (): QueuePriority => (flag.synced ? "change" : "background"),
  };
  source.waitForSync().then(
    () => {
      flag.synced = true;
    },
    () => {},
  );
  return flag;
}
