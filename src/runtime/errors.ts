/** Why a call to the Kubernetes API failed, from the caller's point of view. */
export type KubeErrorCode =
  | "bad_request"
  | "unauthorized"
  | "forbidden"
  | "not_found"
  | "conflict"
  | "gone"
  | "invalid"
  | "too_many_requests"
  | "server_error"
  | "transport"
  | "bad_response"
  | "config";

/** A failed Kubernetes API call. The message is the API server's (never a credential). */
export class KubeApiError extends Error {
  readonly code: KubeErrorCode;
  /** HTTP status, or 0 when no response arrived. */
  readonly statusCode: number;
  /** The Status object's `reason` (e.g. `Expired`, `Conflict`), when the server sent one. */
  readonly reason: string | undefined;

  constructor(
    code: KubeErrorCode,
    statusCode: number,
    message: string,
    reason?: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = "KubeApiError";
    this.code = code;
    this.statusCode = statusCode;
    this.reason = reason;
  }
}

export function codeForStatus(statusCode: number): KubeErrorCode {
  switch (statusCode) {
    case 400:
      return "bad_request";
    case 401:
      return "unauthorized";
    case 403:
      return "forbidden";
    case 404:
      return "not_found";
    case 409:
      return "conflict";
    case 410:
      return "gone";
    case 422:
      return "invalid";
    case 429:
      return "too_many_requests";
    default:
      return statusCode >= 500 ? "server_error" : "bad_request";
  }
}

export function isKubeError(error: unknown, code: KubeErrorCode): error is KubeApiError {
  return error instanceof KubeApiError && error.code === code;
}
