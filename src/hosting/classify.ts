import type { HostingErrorKind } from "./errors.ts";

/**
 * Whether repeating an operation is safe:
 * - `safe`: reads, and writes whose repetition converges (PATCH the same fields, stop);
 * - `with-key`: creates carrying an Idempotency-Key, which the service replays;
 * - `never`: each call acts again (restart, build trigger, power, delete…).
 */
export type RetrySafety = "safe" | "with-key" | "never";

/** What a failure says about the service having acted on the request. */
export type FailureEffect = "not-acted" | "maybe-acted" | "rejected";

/** 429 and request_in_progress are refused before any work; 5xx may come after the work. */
export function effectOfStatus(status: number, code: string): FailureEffect {
  if (status === 429 || code === "rate_limited" || code === "request_in_progress") return "not-acted";
  if (status >= 500) return "maybe-acted";
  return "rejected";
}

export function kindOf(effect: FailureEffect, safety: RetrySafety): HostingErrorKind {
  if (effect === "not-acted") return "retryable";
  if (effect === "rejected") return "terminal";
  return safety === "safe" ? "retryable" : "uncertain";
}

/**
 * The client repeats a failed call itself only when that cannot act twice: retryable failures.
 * Never an uncertain create, even with its key: a service that acted without recording the key
 * would act again (spec rule 7), so the caller inspects first.
 */
export function mayRepeat(kind: HostingErrorKind): boolean {
  return kind === "retryable";
}

/** Error codes (from Node and src/http) raised before a request leaves: the service saw nothing. */
const connectCodes = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EADDRNOTAVAIL",
  "connect_timeout",
]);

const timeoutCodes = new Set(["headers_timeout", "body_timeout"]);

/** A TLS handshake that failed (certificate, protocol): Node writes the request only after it. */
function isTlsCode(code: string): boolean {
  return /^(ERR_SSL_|ERR_TLS_)|CERT|^EPROTO$/.test(code);
}

export type NetworkFailure = "connect_failed" | "timeout" | "connection_lost";

export function networkFailureOf(error: unknown): NetworkFailure {
  const code = errorCode(error);
  if (code !== undefined && (connectCodes.has(code) || isTlsCode(code))) return "connect_failed";
  if (code !== undefined && timeoutCodes.has(code)) return "timeout";
  return "connection_lost";
}

const causes: Record<string, string> = {
  ECONNREFUSED: "connection refused (nothing listens on that port)",
  ENOTFOUND: "DNS: the host name does not resolve",
  EAI_AGAIN: "DNS: the lookup failed for now",
  EHOSTUNREACH: "the host is unreachable",
  ENETUNREACH: "the network is unreachable",
  EADDRNOTAVAIL: "the address is not available",
  ECONNRESET: "the connection was reset",
  connect_timeout: "no connection within the connect timeout",
};

/** Why a connection failed, in words a person can act on: "connection refused", "DNS: …", "TLS: …". */
export function networkCauseOf(error: unknown): string | undefined {
  const code = errorCode(error);
  if (code === undefined) return undefined;
  const known = causes[code];
  if (known !== undefined) return known;
  if (isTlsCode(code)) return `TLS: ${innermostMessage(error) ?? code} (${code})`;
  return code;
}

function innermostMessage(error: unknown): string | undefined {
  let message: string | undefined;
  for (let e: unknown = error; e instanceof Error; e = e.cause) if (e.message !== "") message = e.message;
  return message;
}

function errorCode(error: unknown): string | undefined {
  for (let e: unknown = error; e instanceof Error; e = e.cause) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && code !== "") return code;
  }
  return undefined;
}
