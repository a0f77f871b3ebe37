import { formatMoney } from "./store/money.ts";

export interface ErrorDetail {
  path: string;
  message: string;
}

/** An error the API answers with: HTTP status, a stable `code`, and code-specific fields. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly extra: Record<string, unknown>;
  readonly headers: Record<string, string>;

  constructor(
    status: number,
    code: string,
    message: string,
    extra: Record<string, unknown> = {},
    headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
    this.extra = extra;
    this.headers = headers;
  }
}

export function validationFailed(details: ErrorDetail[], message?: string): ApiError {
  const first = details[0];
  const summary =
    message ?? (first ? `${first.path || "body"}: ${first.message}` : "the request is not valid");
  return new ApiError(400, "validation_failed", summary, { details });
}

export function notFound(resourceType: string, id: string): ApiError {
  return new ApiError(404, "not_found", `${resourceType} ${id} was not found`, { resourceType });
}

export function conflict(code: string, message: string, extra: Record<string, unknown> = {}): ApiError {
  return new ApiError(409, code, message, extra);
}

/** 402: the balance doesn't cover an hour of what is being started (amounts in micro-USD). */
export function insufficientBalance(balance: number, hourlyCost: number, action: string): ApiError {
  return new ApiError(
    402,
    "insufficient_balance",
    `the balance (${formatMoney(balance)} USD) does not cover one hour (${formatMoney(hourlyCost)} USD) of ${action}; add credits, then try again`,
    { balance: formatMoney(balance), hourlyCost: formatMoney(hourlyCost), currency: "USD" },
  );
}
