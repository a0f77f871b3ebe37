import type { Priority } from "./limiter.ts";

/** Labels shared by every event: the operation (routes table name) and a non-secret credential id. */
export interface CallLabels {
  operation: string;
  credential: string;
}

export interface RequestEvent extends CallLabels {
  /** HTTP status, or undefined when no response came. */
  status: number | undefined;
  /** The status as text, or the client's error code when no response came (`timeout`, …). */
  code: string;
  durationSec: number;
  /** 1 for the first attempt. */
  attempt: number;
}

export interface LimiterWaitEvent extends CallLabels {
  priority: Priority;
  waitSec: number;
}

export interface RateLimitedEvent extends CallLabels {
  retryAfterSec: number | undefined;
}

export interface BudgetEvent {
  credential: string;
  limit: number | undefined;
  remaining: number;
  resetAtMs: number;
}

/** Hooks for metrics and logs; every hook is optional. Events never carry the credential itself. */
export interface HostingObserver {
  onRequest?(event: RequestEvent): void;
  onLimiterWait?(event: LimiterWaitEvent): void;
  onRateLimited?(event: RateLimitedEvent): void;
  onReplay?(event: CallLabels): void;
  onBudget?(event: BudgetEvent): void;
}

/** The log lines the client writes; a pino logger is one. Declared here so hosting/ imports no telemetry. */
export interface HostingLogger {
  warn(fields: object, message: string): void;
  debug(fields: object, message: string): void;
  child(bindings: Record<string, string>): HostingLogger;
}
