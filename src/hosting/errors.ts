/**
 * What a caller may conclude from a failure:
 * - `retryable`: the service did not act (or acting again is harmless); try again later.
 * - `terminal`: the request is wrong for the service's current state; a person or a spec change must fix it.
 * - `uncertain`: the service may have acted; look the object up before doing it again.
 */
export type HostingErrorKind = "retryable" | "terminal" | "uncertain";

/** Codes the service sends in `{"error": {"code"}}`. Unknown codes are kept as they come. */
export type ServiceErrorCode =
  | "unauthorized"
  | "insufficient_scope"
  | "key_project_restricted"
  | "forbidden"
  | "account_frozen"
  | "validation_failed"
  | "not_found"
  | "idempotency_conflict"
  | "request_in_progress"
  | "app_not_stopped"
  | "insufficient_balance"
  | "payload_too_large"
  | "rate_limited";

/** Codes the client itself assigns when there is no service error body to read. */
export type ClientErrorCode =
  | "connect_failed"
  | "timeout"
  | "connection_lost"
  | "aborted"
  | "response_invalid"
  | "unexpected_status"
  | "pagination_loop";

export type HostingErrorCode = ServiceErrorCode | ClientErrorCode | (string & {});

export interface HostingErrorInit {
  code: HostingErrorCode;
  kind: HostingErrorKind;
  operation: string;
  message: string;
  status?: number | undefined;
  requestId?: string | undefined;
  retryAfterSec?: number | undefined;
  requiredScopes?: readonly string[] | undefined;
  details?: unknown;
  cause?: unknown;
}

/** Every failure of a hosting call. Messages quote the request ID, never the credential. */
export class HostingError extends Error {
  readonly code: HostingErrorCode;
  readonly kind: HostingErrorKind;
  readonly operation: string;
  readonly status: number | undefined;
  readonly requestId: string | undefined;
  readonly retryAfterSec: number | undefined;
  readonly requiredScopes: readonly string[];
  readonly details: unknown;

  constructor(init: HostingErrorInit) {
    super(describe(init), init.cause === undefined ? undefined : { cause: init.cause });
    this.name = "HostingError";
    this.code = init.code;
    this.kind = init.kind;
    this.operation = init.operation;
    this.status = init.status;
    this.requestId = init.requestId;
    this.retryAfterSec = init.retryAfterSec;
    this.requiredScopes = init.requiredScopes ?? [];
    this.details = init.details;
  }
}

/** The service answered with an error status. */
export class HostingApiError extends HostingError {
  override readonly status: number;

  constructor(init: HostingErrorInit & { status: number }) {
    super(init);
    this.name = "HostingApiError";
    this.status = init.status;
  }
}

/** No answer: the connection failed, timed out or dropped. `sent` says whether the request left. */
export class HostingNetworkError extends HostingError {
  readonly sent: boolean;

  constructor(init: HostingErrorInit & { sent: boolean }) {
    super(init);
    this.name = "HostingNetworkError";
    this.sent = init.sent;
  }
}

export interface ResponseIssue {
  /** Dotted path of the offending field, e.g. `items.0.id`; empty for the whole body. */
  path: string;
  message: string;
}

/** A response that does not match the documented shape (`response_invalid`). */
export class HostingResponseInvalidError extends HostingError {
  readonly issues: readonly ResponseIssue[];

  constructor(
    init: Omit<HostingErrorInit, "code" | "kind" | "message"> & { issues: readonly ResponseIssue[] },
  ) {
    const fields = init.issues.map((issue) => `${issue.path || "(body)"}: ${issue.message}`).join("; ");
    super({
      ...init,
      code: "response_invalid",
      kind: "terminal",
      message: `unexpected response shape: ${fields}`,
    });
    this.name = "HostingResponseInvalidError";
    this.issues = init.issues;
  }
}

export function isHostingError(error: unknown): error is HostingError {
  return error instanceof HostingError;
}

function describe(init: HostingErrorInit): string {
  const facts = [init.code, init.status === undefined ? undefined : `HTTP ${init.status}`];
  if (init.requiredScopes !== undefined && init.requiredScopes.length > 0) {
    facts.push(`missing scopes ${init.requiredScopes.join(", ")}`);
  }
  if (init.retryAfterSec !== undefined) facts.push(`retry after ${init.retryAfterSec}s`);
  facts.push(init.requestId === undefined ? undefined : `request ${init.requestId}`);
  return `${init.operation}: ${init.message} (${facts.filter((f) => f !== undefined).join(", ")})`;
}
