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
}

/** Fault rules by operation; each hit counts down `times`. A rule whose roll misses lets the next one try. */
export class FaultTable {
  #faults: ActiveFault[] = [];
  #next = 1;

  add(fault: Fault): string {
    const id = `fault_${this.#next++}`;
    this.#faults.push({ ...fault, id });
    return id;
  }

  list(): ActiveFault[] {
    return this.#faults.map((f) => ({ ...f }));
  }

  /** Clears one rule (false when it doesn't exist) or, without an id, all of them. */
  clear(id?: string): boolean {
    if (id === undefined) {
      this.#faults = [];
      return true;
    }
    const before = this.#faults.length;
    this.#faults = this.#faults.filter((f) => f.id !== id);
    return this.#faults.length < before;
  }

  /** The first rule matching the operation that hits (see `probability`), consuming one of its hits. */
  take(operation: string, random: () => number = Math.random, keyId?: string): ActiveFault | undefined {
    if (this.#faults.length === 0) return undefined;
    const fault = this.#faults.find(
      (f) =>
        (f.operation === operation || f.operation === "*") &&
        (f.keyId === undefined || f.keyId === keyId) &&
        (f.probability === undefined || random() < f.probability),
    );
    if (fault === undefined) return undefined;
    if (fault.skip !== undefined) {
      fault.skip = fault.skip > 1 ? fault.skip - 1 : undefined;
      return undefined;
    }
    if (fault.times !== undefined) {
      fault.times--;
      if (fault.times <= 0) this.#faults = this.#faults.filter((f) => f !== fault);
    }
    return { ...fault };
  }
}
