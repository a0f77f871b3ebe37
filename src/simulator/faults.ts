import { z } from "zod";

export const faultSchema = z
  .object({
    /** An operation name from the routes table, or "*" for every operation. */
    operation: z.string().min(1),
    latencyMs: z.number().int().min(0).max(600_000).optional(),
    status: z.number().int().min(400).max(599).optional(),
    retryAfterSec: z.number().int().min(0).max(3600).optional(),
    /** Perform the operation, then destroy the connection without answering. */
    dropResponse: z.boolean().optional(),
    /** With dropResponse: don't record the idempotent response, so a retry acts again. */
    forgetIdempotency: z.boolean().optional(),
    /** How many requests it hits; unlimited until cleared when absent. */
    times: z.number().int().min(1).optional(),
    /** Lets this many matching requests through before it starts hitting (e.g. 1: the second call). */
    skip: z.number().int().min(1).optional(),
    /** The chance (0–1] that it hits a matching request, rolled per request; every one when absent. */
    probability: z.number().gt(0).max(1).optional(),
    /** Only requests made with this API key (its id, e.g. one tenant's 429 storm); every key when absent. */
    keyId: z.string().min(1).optional(),
  })
  .strict()
  .refine((f) => !(f.status !== undefined && f.dropResponse === true), {
    message: "a fault either answers a status or drops the response, not both",
  });

export type Fault = z.infer<typeof faultSchema>;

export interface ActiveFault extends Fault {
  id: string;
  /** Requests it has hit so far (answered, delayed or dropped). */
  hits: number;
}

/** When a rule is looked at: at admission (429 rules) or just before the operation runs (the rest). */
export type FaultPhase = "admission" | "operation";

/** What a fault is checked against: the operations that exist and the keys that exist. */
export interface FaultTargets {
  /** Operation name → whether it honours Idempotency-Key. */
  operations: ReadonlyMap<string, { idempotent: boolean }>;
  keyExists(keyId: string): boolean;
}

/**
 * Why this fault could never fire or would change nothing (one line each, saying what to fix);
 * empty when it can apply. A typo in a test's fault must not silently test nothing.
 */
export function faultProblems(fault: Fault, targets: FaultTargets): { path: string; message: string }[] {
  const problems: { path: string; message: string }[] = [];
  const operation = fault.operation === "*" ? undefined : targets.operations.get(fault.operation);
  if (fault.operation !== "*" && operation === undefined) {
    problems.push({
      path: "operation",
      message: `no operation is named "${fault.operation}": use an operation from the routes table (such as createApp) or "*"`,
    });
  }
  if (fault.keyId !== undefined && !targets.keyExists(fault.keyId)) {
    problems.push({
      path: "keyId",
      message: `no key has the id "${fault.keyId}": use the id POST /_sim/keys returned`,
    });
  }
  if (fault.latencyMs === undefined && fault.status === undefined && fault.dropResponse !== true) {
    problems.push({
      path: "fault",
      message: "the fault does nothing: give it latencyMs, status or dropResponse: true",
    });
  }
  if (fault.latencyMs === 0 && fault.status === undefined && fault.dropResponse !== true) {
    problems.push({ path: "latencyMs", message: "a latency of 0 does nothing: give a positive latencyMs" });
  }
  if (fault.retryAfterSec !== undefined && fault.status === undefined) {
    problems.push({
      path: "retryAfterSec",
      message: "applies only to an answered status: add status (such as 429 or 503)",
    });
  }
  if (fault.forgetIdempotency === true && fault.dropResponse !== true) {
    problems.push({ path: "forgetIdempotency", message: "applies only with dropResponse: true" });
  }
  if (fault.forgetIdempotency === true && operation !== undefined && !operation.idempotent) {
    problems.push({
      path: "forgetIdempotency",
      message: `${fault.operation} takes no Idempotency-Key, so there is nothing to forget: remove forgetIdempotency`,
    });
  }
  return problems;
}

/** Fault rules by operation; each hit counts down `times`. A rule whose roll misses lets the next one try. */
export class FaultTable {
  #faults: ActiveFault[] = [];
  #spent: ActiveFault[] = [];
  #next = 1;

  add(fault: Fault): string {
    const id = `fault_${this.#next++}`;
    this.#faults.push({ ...fault, id, hits: 0 });
    return id;
  }

  /** The rules still active; `times` is what is left of it. */
  list(): ActiveFault[] {
    return this.#faults.map((f) => ({ ...f }));
  }

  /** Rules whose `times` ran out, with their hits (until cleared). */
  spent(): ActiveFault[] {
    return this.#spent.map((f) => ({ ...f }));
  }

  /** Clears one rule (false when it doesn't exist) or, without an id, all of them. */
  clear(id?: string): boolean {
    if (id === undefined) {
      this.#faults = [];
      this.#spent = [];
      return true;
    }
    const before = this.#faults.length + this.#spent.length;
    this.#faults = this.#faults.filter((f) => f.id !== id);
    this.#spent = this.#spent.filter((f) => f.id !== id);
    return this.#faults.length + this.#spent.length < before;
  }

  /**
   * The first rule matching the operation that hits (see `probability`), consuming one of its hits.
   * `admission` takes only 429 rules (a rate limit refuses before anything else runs); `operation`
   * takes every other rule, just before the operation runs.
   */
  take(
    operation: string,
    random: () => number = Math.random,
    keyId?: string,
    phase: FaultPhase = "operation",
  ): ActiveFault | undefined {
    if (this.#faults.length === 0) return undefined;
    const fault = this.#faults.find(
      (f) =>
        (f.status === 429) === (phase === "admission") &&
        (f.operation === operation || f.operation === "*") &&
        (f.keyId === undefined || f.keyId === keyId) &&
        (f.probability === undefined || random() < f.probability),
    );
    if (fault === undefined) return undefined;
    if (fault.skip !== undefined) {
      fault.skip = fault.skip > 1 ? fault.skip - 1 : undefined;
      return undefined;
    }
    fault.hits++;
    if (fault.times !== undefined) {
      fault.times--;
      if (fault.times <= 0) {
        this.#faults = this.#faults.filter((f) => f !== fault);
        this.#spent.push(fault);
      }
    }
    return { ...fault };
  }
}
