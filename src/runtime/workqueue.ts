import type { WorkqueueMetrics } from "../telemetry/metrics.ts";
import { controllerRateLimiter, type RateLimiter } from "./rate-limiter.ts";

/**
 * `change`: something a person is waiting on (a new object, a new generation, a deletion, an
 * annotation request, the dependants they wake, and retries of those). `background`: initial-list
 * items, drift checks and polls.
 */
export type QueuePriority = "change" | "background";

/** Default bound after which a waiting background key is served alternately with changes. */
export const defaultBackgroundAgingMs = 10_000;

export interface WorkQueueOptions {
  /** The `name` label of the workqueue metrics. */
  name: string;
  metrics?: WorkqueueMetrics;
  rateLimiter?: RateLimiter;
  now?: () => number;
  /**
   * A background key that has waited this long is no longer starved by a stream of changes: from
   * then on every other key handed out is the oldest such key (default 10 s).
   */
  backgroundAgingMs?: number;
}

interface Queued {
  priority: QueuePriority;
  addedAt: number;
  /** Which lane entry is the live one (a promoted key leaves a stale background entry behind). */
  seq: number;
}

const higher = (a: QueuePriority, b: QueuePriority | undefined): QueuePriority =>
  a === "change" || b === "change" ? "change" : "background";

/**
 * client-go's rate-limited work queue with two priorities. A key is queued at most once (`dirty`),
 * handed to at most one worker at a time (`processing`), and a key added while it is processed runs
 * again after `done`. Changes are handed out before background keys, FIFO within a priority; a key
 * keeps the highest priority it was added with until it is handed out; a background key older than
 * `backgroundAgingMs` is served every other time, so it is never starved. Delays use the global
 * timer functions, so tests drive them with fake timers.
 */
export class WorkQueue {
  readonly #name: string;
  readonly #metrics: WorkqueueMetrics | undefined;
  readonly #limiter: RateLimiter;
  readonly #now: () => number;
  readonly #agingMs: number;
  readonly #lanes: Record<QueuePriority, Fifo<{ key: string; seq: number }>> = {
    change: new Fifo(),
    background: new Fifo(),
  };
  /** Keys waiting in a lane. */
  readonly #queued = new Map<string, Queued>();
  /** Keys added while processed: queued again, at this priority, once done. */
  readonly #dirty = new Map<string, QueuePriority>();
  /** Keys being processed, with the time processing started and the priority they were taken at. */
  readonly #processing = new Map<string, { startedAt: number; priority: QueuePriority }>();
  /** Delayed keys: when each becomes ready, at which priority, and the timer that adds it. */
  readonly #waiting = new Map<string, { readyAt: number; priority: QueuePriority; timer: NodeJS.Timeout }>();
  #seq = 0;
  /** The last key handed out was an aged background key: the next goes to a change if any. */
  #servedAged = false;
  readonly #getters: Array<(key: string | undefined) => void> = [];
  readonly #drained: Array<() => void> = [];
  readonly #untrack: () => void;
  #shuttingDown = false;

  constructor(options: WorkQueueOptions) {
    this.#name = options.name;
    this.#metrics = options.metrics;
    this.#now = options.now ?? (() => Date.now());
    this.#limiter = options.rateLimiter ?? controllerRateLimiter({ now: this.#now });
    this.#agingMs = options.backgroundAgingMs ?? defaultBackgroundAgingMs;
    this.#untrack =
      options.metrics?.trackUnfinishedWork(this.#name, () => this.#unfinishedWork()) ?? (() => {});
  }

  /** Queues `key` (default priority `change`); a key already queued only ever moves up. */
  add(key: string, priority: QueuePriority = "change"): void {
    if (this.#shuttingDown) return;
    const queued = this.#queued.get(key);
    if (queued !== undefined) {
      if (priority === "change" && queued.priority === "background")
        this.#push(key, "change", queued.addedAt);
      return;
    }
    const dirty = this.#dirty.get(key);
    if (dirty !== undefined) {
      this.#dirty.set(key, higher(priority, dirty));
      return;
    }
    this.#metrics?.adds.inc({ name: this.#name });
    if (this.#processing.has(key)) this.#dirty.set(key, priority);
    else this.#enqueue(key, priority);
  }

  /**
   * Adds `key` after `ms`; of several pending delays for one key the earliest wins, at the higher
   * of their priorities.
   */
  addAfter(key: string, ms: number, priority: QueuePriority = "change"): void {
    if (this.#shuttingDown) return;
    if (ms <= 0) {
      this.add(key, priority);
      return;
    }
    const readyAt = this.#now() + ms;
    const pending = this.#waiting.get(key);
    if (pending !== undefined) {
      if (pending.readyAt <= readyAt) {
        pending.priority = higher(priority, pending.priority);
        return;
      }
      clearTimeout(pending.timer);
    }
    const timer = setTimeout(() => {
      const due = this.#waiting.get(key);
      this.#waiting.delete(key);
      this.add(key, due?.priority ?? priority);
    }, ms);
    timer.unref();
    this.#waiting.set(key, { readyAt, priority: higher(priority, pending?.priority), timer });
  }

  /** Adds `key` once the rate limiter allows: its own backoff and the overall bucket. */
  addRateLimited(key: string, priority: QueuePriority = "change"): void {
    if (this.#shuttingDown) return;
    this.#metrics?.retries.inc({ name: this.#name });
    this.addAfter(key, this.#limiter.when(key), priority);
  }

  /** The priority `key` was handed out at, while it is processed. */
  processingPriority(key: string): QueuePriority | undefined {
    return this.#processing.get(key)?.priority;
  }

  /** Resets `key`'s backoff. */
  forget(key: string): void {
    this.#limiter.forget(key);
  }

  retries(key: string): number {
    return this.#limiter.retries(key);
  }

  /** The next key to process, or undefined once the queue is shutting down. */
  get(): Promise<string | undefined> {
    if (this.#shuttingDown) return Promise.resolve(undefined);
    const key = this.#take();
    if (key !== undefined) return Promise.resolve(key);
    return new Promise((resolve) => this.#getters.push(resolve));
  }

  /** Marks `key` processed; if it was added meanwhile, it is queued again. */
  done(key: string): void {
    const processing = this.#processing.get(key);
    if (processing === undefined) return;
    this.#processing.delete(key);
    this.#metrics?.workDuration.observe({ name: this.#name }, (this.#now() - processing.startedAt) / 1000);
    const dirty = this.#dirty.get(key);
    this.#dirty.delete(key);
    if (dirty !== undefined && !this.#shuttingDown) this.#enqueue(key, dirty);
    if (this.#processing.size === 0) for (const resolve of this.#drained.splice(0)) resolve();
  }

  /** Keys ready to be handed out. */
  get length(): number {
    return this.#queued.size;
  }

  /** Keys ready to be handed out at `priority`. */
  lengthOf(priority: QueuePriority): number {
    let count = 0;
    for (const queued of this.#queued.values()) if (queued.priority === priority) count += 1;
    return count;
  }

  get shuttingDown(): boolean {
    return this.#shuttingDown;
  }

  /** Stops handing out keys at once: waiting `get` calls resolve undefined; queued keys are dropped. */
  shutDown(): void {
    if (this.#shuttingDown) return;
    this.#shuttingDown = true;
    for (const { timer } of this.#waiting.values()) clearTimeout(timer);
    this.#waiting.clear();
    for (const resolve of this.#getters.splice(0)) resolve(undefined);
    this.#metrics?.depth.set({ name: this.#name }, 0);
    this.#untrack();
  }

  /** Shuts down, then resolves once every key handed out has been marked done. */
  shutDownWithDrain(): Promise<void> {
    this.shutDown();
    if (this.#processing.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#drained.push(resolve));
  }

  #enqueue(key: string, priority: QueuePriority): void {
    this.#metrics?.depth.inc({ name: this.#name });
    this.#push(key, priority, this.#now());
    const getter = this.#getters.shift();
    if (getter !== undefined) getter(this.#take());
  }

  #push(key: string, priority: QueuePriority, addedAt: number): void {
    this.#seq += 1;
    this.#queued.set(key, { priority, addedAt, seq: this.#seq });
    this.#lanes[priority].push({ key, seq: this.#seq });
  }

  #take(): string | undefined {
    const now = this.#now();
    const agedFirst = !this.#servedAged && this.#oldestBackgroundAged(now);
    const key = agedFirst
      ? this.#shiftLive("background")
      : (this.#shiftLive("change") ?? this.#shiftLive("background"));
    if (key === undefined) return undefined;
    this.#servedAged = agedFirst;
    const queued = this.#queued.get(key);
    this.#queued.delete(key);
    this.#metrics?.depth.dec({ name: this.#name });
    this.#metrics?.queueDuration.observe({ name: this.#name }, (now - (queued?.addedAt ?? now)) / 1000);
    this.#processing.set(key, { startedAt: now, priority: queued?.priority ?? "change" });
    return key;
  }

  /** How long the oldest key queued at `priority` has waited (0 when none waits). */
  oldestWaitMs(priority: QueuePriority): number {
    const queued = this.#oldestLive(priority);
    return queued === undefined ? 0 : Math.max(0, this.#now() - queued.addedAt);
  }

  #oldestBackgroundAged(now: number): boolean {
    const queued = this.#oldestLive("background");
    return queued !== undefined && now - queued.addedAt >= this.#agingMs;
  }

  /** The first live entry of `priority`'s lane (stale ones, of promoted or taken keys, are dropped). */
  #oldestLive(priority: QueuePriority): Queued | undefined {
    const lane = this.#lanes[priority];
    for (let entry = lane.peek(); entry !== undefined; entry = lane.peek()) {
      const queued = this.#queued.get(entry.key);
      if (queued?.seq === entry.seq) return queued;
      lane.shift();
    }
    return undefined;
  }

  /** The first key of `priority`'s lane still queued there (entries of promoted or taken keys are skipped). */
  #shiftLive(priority: QueuePriority): string | undefined {
    const lane = this.#lanes[priority];
    for (let entry = lane.shift(); entry !== undefined; entry = lane.shift()) {
      if (this.#queued.get(entry.key)?.seq === entry.seq) return entry.key;
    }
    return undefined;
  }

  #unfinishedWork() {
    const now = this.#now();
    let unfinishedMs = 0;
    let longestMs = 0;
    for (const { startedAt } of this.#processing.values()) {
      unfinishedMs += now - startedAt;
      longestMs = Math.max(longestMs, now - startedAt);
    }
    return { unfinishedSeconds: unfinishedMs / 1000, longestRunningSeconds: longestMs / 1000 };
  }
}

/** A FIFO with O(1) shift. */
class Fifo<T> {
  #items: T[] = [];
  #head = 0;

  get length(): number {
    return this.#items.length - this.#head;
  }

  push(item: T): void {
    this.#items.push(item);
  }

  peek(): T | undefined {
    return this.#items[this.#head];
  }

  shift(): T | undefined {
    if (this.#head >= this.#items.length) return undefined;
    const item = this.#items[this.#head++];
    if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
    return item;
  }
}
