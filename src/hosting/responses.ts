import { effectOfStatus, kindOf, type NetworkFailure, networkCauseOf } from "./classify.ts";
import {
  HostingApiError,
  HostingNetworkError,
  HostingResponseInvalidError,
  type ResponseIssue,
} from "./errors.ts";
import type { ResponseFacts } from "./headers.ts";
import type { Route } from "./routes.ts";
import { errorBody } from "./schemas.ts";
import type { HttpResponse } from "./transport.ts";

/** The body of a 2xx response, checked against the route's schema. */
export function parseResponse(route: Route, response: HttpResponse, facts: ResponseFacts): unknown {
  const invalid = (issues: ResponseIssue[]) =>
    new HostingResponseInvalidError({
      operation: route.operation,
      status: response.status,
      requestId: facts.requestId,
      issues,
    });
  let json: unknown;
  if (response.body.trim() !== "") {
    try {
      json = JSON.parse(response.body);
    } catch {
      throw invalid([{ path: "", message: "the body is not JSON" }]);
    }
  }
  const parsed = route.response.safeParse(json);
  if (!parsed.success) {
    throw invalid(
      parsed.error.issues.map((issue) => ({ path: issue.path.join("."), message: issue.message })),
    );
  }
  return parsed.data;
}

export function apiError(
  route: Route,
  response: HttpResponse,
  facts: ResponseFacts,
  apiKey: string,
): HostingApiError {
  const parsed = errorBody.safeParse(parseJsonOrUndefined(response.body));
  const status = response.status;
  if (!parsed.success) {
    const code = "unexpected_status";
    return new HostingApiError({
      code,
      kind: kindOf(effectOfStatus(status, code), route.safety),
      operation: route.operation,
      message: `the service answered HTTP ${status} without an error body`,
      status,
      requestId: facts.requestId,
      retryAfterSec: facts.retryAfterSec,
    });
  }
  const { code, message, requestId, requiredScopes, retryAfterSec, details, ...extra } = parsed.data.error;
  return new HostingApiError({
    code,
    kind: kindOf(effectOfStatus(status, code), route.safety),
    operation: route.operation,
    message: scrub(message, apiKey),
    status,
    requestId: requestId ?? facts.requestId,
    retryAfterSec: retryAfterSec ?? facts.retryAfterSec,
    requiredScopes,
    details: scrub(details ?? (Object.keys(extra).length > 0 ? extra : undefined), apiKey),
  });
}

/** `url` is the request's URL without its query: it says where the call went, for a person to check. */
export function networkError(
  route: Route,
  failure: NetworkFailure,
  cause: unknown,
  url: string,
): HostingNetworkError {
  const sent = failure !== "connect_failed";
  const why = networkCauseOf(cause);
  const messages = {
    connect_failed: `could not connect to ${url}${why === undefined ? "" : `: ${why}`}`,
    timeout: `${url} did not answer in time`,
    connection_lost: `the connection to ${url} closed before the response arrived${why === undefined ? "" : ` (${why})`}`,
  };
  return new HostingNetworkError({
    code: failure,
    kind: kindOf(sent ? "maybe-acted" : "not-acted", route.safety),
    operation: route.operation,
    message: messages[failure],
    sent,
    cause,
  });
}

/**
 * The caller gave up (its signal aborted: the lease was lost, the process is stopping). Once the
 * request had left, the service may have acted, as after a timeout; before, it saw nothing.
 */
export function abortedError(route: Route, sent: boolean, cause: unknown): HostingNetworkError {
  return new HostingNetworkError({
    code: "aborted",
    kind: kindOf(sent ? "maybe-acted" : "not-acted", route.safety),
    operation: route.operation,
    message: sent ? "abandoned while waiting for the answer" : "abandoned before the request left",
    sent,
    cause,
  });
}

function parseJsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The service should never echo a credential, but if it did, it must not travel on in an error. */
function scrub<T>(value: T, secret: string): T {
  if (secret === "" || value === undefined) return value;
  if (typeof value === "string") return value.replaceAll(secret, "[redacted]") as T;
  const text = JSON.stringify(value);
  if (!text.includes(secret)) return value;
  return JSON.parse(text.replaceAll(secret, "[redacted]")) as T;
}
