/** How a controller's workers are doing, for the liveness check. */
export interface WorkProgress {
  name: string;
  /** Keys ready to reconcile that no worker has taken yet. */
  waiting: number;
  /** When a worker last took or finished a reconcile (epoch ms). */
  lastProgressAt: number;
}

export interface LivenessLimits {
  /** The event loop blocked longer than this is a wedged process (default 5 s). */
  maxLoopLagMs: number;
  /** Work waiting while no worker took or finished anything for this long is a wedged controller (default 5 min). */
  stuckAfterMs: number;
}

export const defaultLivenessLimits: LivenessLimits = { maxLoopLagMs: 5_000, stuckAfterMs: 5 * 60_000 };

/** Why the process should be restarted; empty when it is alive. Pure. */
export function livenessProblems(
  { loopLagMs, work, now }: { loopLagMs: number; work: readonly WorkProgress[]; now: number },
  limits: LivenessLimits,
): string[] {
  const problems: string[] = [];
  if (loopLagMs > limits.maxLoopLagMs) {
    problems.push(`event loop blocked for ${seconds(loopLagMs)} (limit ${seconds(limits.maxLoopLagMs)})`);
  }
  for (const { name, waiting, lastProgressAt } of work) {
    const idleMs = now - lastProgressAt;
    if (waiting > 0 && idleMs > limits.stuckAfterMs) {
      problems.push(
        `controller ${name}: ${waiting} keys waiting and no reconcile taken or finished for ${seconds(idleMs)} (limit ${seconds(limits.stuckAfterMs)})`,
      );
    }
  }
  return problems;
}

function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}

/**
 * Event-loop lag by timer drift: a timer due every `intervalMs` that runs late was held up by a
 * blocked loop. The lag is the larger of the last tick's delay and the silence since it (a loop
 * blocked right now has not ticked yet).
 */
export class LoopLagMonitor {
  readonly #intervalMs: number;
  readonly #now: () => number;
  #lastTickAt: number;
  #lastLagMs = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(options: { intervalMs?: number; now?: () => number } = {}) {
    this.#intervalMs = options.intervalMs ?? 500;
    this.#now = options.now ?? (() => performance.now());
    this.#lastTickAt = this.#now();
  }

  start(): void {
    this.#lastTickAt = this.#now();
    this.#timer ??= setInterval(() => this.tick(), this.#intervalMs).unref();
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** The timer's callback. */
  tick(): void {
    const now = this.#now();
    this.#lastLagMs = Math.max(0, now - this.#lastTickAt - this.#intervalMs);
    this.#lastTickAt = now;
  }

  lagMs(): number {
    return Math.max(this.#lastLagMs, this.#now() - this.#lastTickAt - this.#intervalMs);
  }
}
