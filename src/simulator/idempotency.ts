import { createHash } from "node:crypto";
import { ApiError, conflict } from "./errors.ts";

export function requestInProgress(retryAfterSec: number): ApiError {
  return new ApiError(
    409,
    "request_in_progress",
    "the first request with this Idempotency-Key is still running; retry the same request later",
    { retryAfterSec },
    { "Retry-After": String(retryAfterSec) },
  );
}

export const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000;

export interface RecordedResponse {
  status: number;
  body: unknown;
}

interface Entry {
  fingerprint: string;
  expiresAt: number;
  /** When the first request is expected to answer (wall-clock ms: latency faults count too). */
  readyAt: number;
  response: RecordedResponse | undefined;
}

export type IdempotencyOutcome =
  | { kind: "new" }
  | { kind: "replay"; response: RecordedResponse }
  | { kind: "in_progress"; readyAt: number };

/** 1–255 characters, no whitespace. */
export function checkIdempotencyKey(key: string): string | undefined {
  if (key.length < 1 || key.length > 255) return "must be 1 to 255 characters";
  if (/\s/.test(key)) return "must not contain whitespace";
  return undefined;
}

/** A stable digest of the arguments: key order in objects does not matter. */
export function fingerprint(value: unknown): string {
  return createHash("sha256").update(canonicalJson(value)).digest("hex");
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`);
    return `{${entries.join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** Records by scope (credential + Idempotency-Key, and the operation when lenient), kept 24 h on the simulated clock. */
export class IdempotencyStore {
  readonly #entries = new Map<string, Entry>();
  #sinceSweep = 0;

  begin(scope: string, argsFingerprint: string, now: number, readyAt: number): IdempotencyOutcome {
    this.#sweep(now);
    const entry = this.#entries.get(scope);
    if (entry !== undefined && entry.expiresAt > now) {
      if (entry.fingerprint !== argsFingerprint) {
        throw conflict(
          "idempotency_conflict",
          "this Idempotency-Key was already used with different arguments; use a new key",
        );
      }
      if (entry.response === undefined) return { kind: "in_progress", readyAt: entry.readyAt };
      return { kind: "replay", response: entry.response };
    }
    this.#entries.set(scope, {
      fingerprint: argsFingerprint,
      expiresAt: now + IDEMPOTENCY_RETENTION_MS,
      readyAt,
      response: undefined,
    });
    return { kind: "new" };
  }

  /** The first request will answer `ms` later than expected (an injected latency). */
  postpone(scope: string, ms: number): void {
    const entry = this.#entries.get(scope);
    if (entry !== undefined && entry.response === undefined) entry.readyAt += ms;
  }

  complete(scope: string, response: RecordedResponse): void {
    const entry = this.#entries.get(scope);
    if (entry !== undefined) entry.response = response;
  }

  abandon(scope: string): void {
    const entry = this.#entries.get(scope);
    if (entry !== undefined && entry.response === undefined) this.#entries.delete(scope);
  }

  #sweep(now: number): void {
    if (++this.#sinceSweep < 1000) return;
    this.#sinceSweep = 0;
    for (const [scope, entry] of this.#entries) {
      if (entry.expiresAt <= now && entry.response !== undefined) this.#entries.delete(scope);
    }
  }
}
