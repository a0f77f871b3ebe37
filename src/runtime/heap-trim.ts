import v8 from "node:v8";
import vm from "node:vm";
import type { Logger } from "../telemetry/logger.ts";
import type { Runnable } from "./manager.ts";

export interface HeapTrimOptions {
  /** True while work is under way: a reconcile running or queued. */
  busy(): boolean;
  logger: Logger;
  /** How often the heap is looked at (default 1 s). */
  intervalMs?: number;
  /** Trim once the heap holds this many bytes more than it uses (default 8 MB). */
  slackBytes?: number;
  /** A full garbage collection; by default V8's, exposed at run time. */
  collect?: () => void;
}

/**
 * Gives memory back after a burst of work. V8 sizes its heap for the burst it just saw: the initial
 * list of thousands of objects grows the young generation to its maximum (128 MB by default on a
 * large machine) and leaves old-generation pages half empty, and an idle process seldom collects
 * again, so that memory stays resident. Once no work has been under way for a whole interval and
 * the heap's unused share exceeds `slackBytes`, this runs one full collection, which compacts the
 * heap and shrinks the young generation. Once per burst: nothing runs again until work resumes.
 */
export class HeapTrimmer implements Runnable {
  readonly #options: HeapTrimOptions;
  readonly #collect: (() => void) | undefined;
  #timer: NodeJS.Timeout | undefined;
  #quiet = false;
  #trimmed = false;

  constructor(options: HeapTrimOptions) {
    this.#options = options;
    this.#collect = options.collect ?? exposedGc();
  }

  start(): void {
    if (this.#collect === undefined || this.#timer !== undefined) return;
    this.#timer = setInterval(() => this.#check(), this.#options.intervalMs ?? 1000);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #check(): void {
    if (this.#options.busy()) {
      this.#quiet = false;
      this.#trimmed = false;
      return;
    }
    // Quiet for a whole interval, not just at this instant.
    const wasQuiet = this.#quiet;
    this.#quiet = true;
    if (!wasQuiet || this.#trimmed) return;
    const { total_heap_size: total, used_heap_size: used } = v8.getHeapStatistics();
    if (total - used < (this.#options.slackBytes ?? 8 * 2 ** 20)) return;
    this.#trimmed = true;
    const started = performance.now();
    this.#collect?.();
    const after = v8.getHeapStatistics().total_heap_size;
    this.#options.logger.debug(
      {
        heapMb: Math.round(total / 2 ** 20),
        afterMb: Math.round(after / 2 ** 20),
        ms: Math.round(performance.now() - started),
      },
      "work queues idle: heap trimmed",
    );
  }
}

/** V8's `gc()`, made available without a command-line flag; undefined where that is refused. */
export function exposedGc(): (() => void) | undefined {
  try {
    v8.setFlagsFromString("--expose-gc");
    const gc: unknown = vm.runInNewContext("gc");
    v8.setFlagsFromString("--no-expose-gc");
    return typeof gc === "function" ? () => gc() : undefined;
  } catch {
    return undefined;
  }
}
