import type { WorkqueueMetrics } from "../telemetry/metrics.ts";
import { controllerRateLimiter, type RateLimiter } from "./rate-limiter.ts";

export interface WorkQueueOptions {
  /** The `name` label of the workqueue metrics. */
  name: string;
  metrics?: WorkqueueMetrics;
  rateLimiter?: RateLimiter;
  now?: () => number;
}

/**
 * client-go's rate-limited work queue. A key is queued at most once (`dirty`), handed to at most
 * one worker at a time (`processing`), and a key added while it is processed runs again after
 * `done`. Delays use the global timer functions, so tests drive them with fake timers.
 */
export class WorkQueue {
  readonly #name: string;
  readonly #metrics: WorkqueueMetrics | undefined;
  readonly #limiter: RateLimiter;
  readonly #now: () => number;
  readonly #queue = new Fifo();
  readonly #dirty = new Set<string>();
  /** Keys being processed, with the time processing started. */
  readonly #processing = new Map<string, number>();
  /** When each queued key was added, for the queue-duration histogram. */
  readonly #addedAt = new Map<string, number>();
  /** Delayed keys: when each becomes ready and the timer that adds it. */
  readonly #waiting = new Map<string, { readyAt: number; timer: NodeJS.Timeout }>();
  readonly #getters: Array<(key: string | undefined) => void> = [];
  readonly #drained: Array<() => void> = [];
  readonly #untrack: () => void;
  #shuttingDown = false;

  constructor(options: WorkQueueOptions) {
    this.#name = options.name;
    this.#metrics = options.metrics;
    this.#now = options.now ?? (() => Date.now());
    this.#limiter = options.rateLimiter ?? controllerRateLimiter({ now: this.#now });
    this.#untrack =
      options.metrics?.trackUnfinishedWork(this.#name, () => this.#unfinishedWork()) ?? (() => {});
  }

  add(key: string): void {
    if (this.#shuttingDown || this.#dirty.has(key)) return;
    this.#metrics?.adds.inc({ name: this.#name });
    this.#dirty.add(key);
    if (this.#processing.has(key)) return;
    this.#enqueue(key);
  }

  /** Adds `key` after `ms`; of several pending delays for one key the earliest wins. */
  addAfter(key: string, ms: number): void {
    if (this.#shuttingDown) return;
    if (ms <= 0) {
      this.add(key);
      return;
    }
    const readyAt = this.#now() + ms;
    const pending = this.#waiting.get(key);
    if (pending !== undefined) {
      if (pending.readyAt <= readyAt) return;
      clearTimeout(pending.timer);
    }
    const timer = setTimeout(() => {
      this.#waiting.delete(key);
      this.add(key);
    }, ms);
    timer.unref();
    this.#waiting.set(key, { readyAt, timer });
  }

  /** Adds `key` once the rate limiter allows: its own backoff and the overall bucket. */
  addRateLimited(key: string): void {
    if (this.#shuttingDown) return;
    this.#metrics?.retries.inc({ name: this.#name });
    this.addAfter(key, this.#limiter.when(key));
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
    const startedAt = this.#processing.get(key);
    if (startedAt === undefined) return;
    this.#processing.delete(key);
    this.#metrics?.workDuration.observe({ name: this.#name }, (this.#now() - startedAt) / 1000);
    if (this.#dirty.has(key) && !this.#shuttingDown) this.#enqueue(key);
    if (this.#processing.size === 0) for (const resolve of this.#drained.splice(0)) resolve();
  }

  get length(): number {
    return this.#queue.length;
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

  #enqueue(key: string): void {
    this.#addedAt.set(key, this.#now());
    this.#metrics?.depth.inc({ name: this.#name });
    this.#queue.push(key);
    const getter = this.#getters.shift();
    if (getter !== undefined) getter(this.#take());
  }

  #take(): string | undefined {
    const key = this.#queue.shift();
    if (key === undefined) return undefined;
    const now = this.#now();
    this.#metrics?.depth.dec({ name: this.#name });
    this.#metrics?.queueDuration.observe(
      { name: this.#name },
      (now - (this.#addedAt.get(key) ?? now)) / 1000,
    );
    this.#addedAt.delete(key);
    this.#dirty.delete(key);
    this.#processing.set(key, now);
    return key;
  }

  #unfinishedWork() {
    const now = this.#now();
    let unfinishedMs = 0;
    let longestMs = 0;
    for (const startedAt of this.#processing.values()) {
      unfinishedMs += now - startedAt;
      longestMs = Math.max(longestMs, now - startedAt);
    }
    return { unfinishedSeconds: unfinishedMs / 1000, longestRunningSeconds: longestMs / 1000 };
  }
}

/** A FIFO with O(1) shift. */
class Fifo {
  #items: string[] = [];
  #head = 0;

  get length(): number {
    return this.#items.length - this.#head;
  }

  push(item: string): void {
    this.#items.push(item);
  }

  shift(): string | undefined {
    if (this.#head >= this.#items.length) return undefined;
    const item = this.#items[this.#head++];
    if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
    return item;
  }
}
