import type { HostingError } from "../../hosting/index.ts";
import { Reason } from "./reasons.ts";

/** Why a resource cannot progress now, as its conditions will say. */
export interface Problem {
  /** A person must act (Stalled); otherwise the work is retried (Reconciling). */
  stalled: boolean;
  reason: Reason;
  /** One sentence a person can act on, quoting the request ID when there is one; never the key. */
  message: string;
}

export function stalledBy(reason: Reason, message: string): Problem {
  return { stalled: true, reason, message };
}

export function waitingFor(reason: Reason, message: string): Problem {
  return { stalled: false, reason, message };
}

/** What a failed hosting call means for the resource's conditions. */
export interface Failure extends Problem {
  requestId: string | undefined;
  /** The service may have acted: look before acting again. */
  uncertain: boolean;
  /** The key's scopes or projects may have changed: read `/me` again. */
  refreshIdentity: boolean;
  /** The service asked for this wait before a retry. */
  retryAfterMs: number | undefined;
}

/** What each action type is, for messages: a phrase, or one made from the action. */
export type Doing<A extends { type: string }> = {
  [T in A["type"]]: string | ((action: Extract<A, { type: T }>) => string);
};

/** What an action is, for messages ("creating the app"). */
export function doingOf<A extends { type: string }>(doing: Doing<A>, action: A): string {
  const entry = doing[action.type as A["type"]] as string | ((action: A) => string);
  return typeof entry === "string" ? entry : entry(action);
}

/** A failed action's hosting error as a condition, saying what the action was (`doing`). */
export function describeFailedAction<A extends { type: string }>(
  error: HostingError,
  doing: Doing<A>,
  action: A,
): Failure {
  return describeFailure(error, doingOf(doing, action));
}

/** Turns a hosting error into a condition; `doing` says what was attempted ("creating the app"). */
export function describeFailure(error: HostingError, doing: string): Failure {
  const quote = error.requestId === undefined ? "" : ` (request ${error.requestId})`;
  const base = {
    requestId: error.requestId,
    uncertain: error.kind === "uncertain",
    refreshIdentity: false,
    retryAfterMs: error.retryAfterSec === undefined ? undefined : error.retryAfterSec * 1000,
  };
  // error.message already names the operation, code and request ID; advice alone does not.
  const stalled = (reason: Reason, advice: string, refreshIdentity = false): Failure => ({
    ...base,
    stalled: true,
    reason,
    refreshIdentity,
    message: `${doing} failed: ${advice}${advice.includes(error.message) ? "" : quote}`,
  });
  switch (error.code) {
    case "unauthorized":
      return stalled(
        Reason.CredentialsRejected,
        "the service rejected the API key (expired, revoked or mistyped); update the credentials Secret",
        true,
      );
    case "insufficient_scope":
      return stalled(
        Reason.MissingScopes,
        `the API key lacks scopes ${error.requiredScopes.join(", ") || "for this operation"}; use a key that has them`,
        true,
      );
    case "key_project_restricted":
      return stalled(
        Reason.KeyProjectRestricted,
        "the API key is pinned to other projects; use a key allowed on this project",
        true,
      );
    case "account_frozen":
      return stalled(Reason.AccountFrozen, "the account is frozen; contact the service's support");
    case "forbidden":
      return stalled(Reason.Forbidden, `${error.message}; ask the owner for a higher role`);
    case "insufficient_balance":
      return stalled(Reason.InsufficientBalance, "the account balance is used up; add credits");
    case "validation_failed":
      return stalled(Reason.InvalidSpec, `the service refused the request: ${validationDetails(error)}`);
    case "name_taken":
      return stalled(Reason.InvalidSpec, `${error.message}; choose another displayName or adopt that object`);
    case "not_found":
      return stalled(Reason.ExternalNotFound, `${error.message}; check the ID in the spec`);
  }
  if (error.kind === "terminal" && error.code !== "app_not_stopped") {
    return stalled(Reason.HostingError, error.message);
  }
  const rateLimited = error.code === "rate_limited";
  return {
    ...base,
    stalled: false,
    reason: rateLimited ? Reason.RateLimited : Reason.HostingError,
    message: rateLimited
      ? `${doing} failed: the service's rate limit was reached; retrying${quote}`
      : `${doing} failed: ${error.message}; retrying`,
  };
}

/** Where a credential's parts come from, for messages that say what to fix. */
export interface CredentialSource {
  baseUrl: string;
  /** `namespace/name` of the credentials Secret. */
  secret: string;
  baseUrlFrom: "secret" | "flag";
}

/**
 * A failure of the key's first call (`GET /me`), which says more than any other: the Secret's key
 * or base URL is wrong, or its service can't be reached. Each message names the Secret to fix.
 */
export function describeConnectFailure(error: HostingError, source: CredentialSource): Failure {
  const failure = describeFailure(error, "reading the key's identity (GET /me)");
  const baseUrlSetting =
    source.baseUrlFrom === "secret"
      ? `"baseUrl" of Secret ${source.secret}`
      : "the operator's --hosting-base-url";
  if (error.status === 404) {
    return {
      ...failure,
      stalled: true,
      reason: Reason.WrongBaseUrl,
      message:
        `GET ${source.baseUrl.replace(/\/+$/, "")}/me answered 404, so ${source.baseUrl} is not the API's base URL: ` +
        `set ${baseUrlSetting} to the URL ending in /v1 (e.g. https://host/v1)`,
    };
  }
  if (error.code === "unauthorized") {
    return {
      ...failure,
      message: `the service rejected the API key in Secret ${source.secret} (expired, revoked or mistyped): put a valid key in its "apiKey"`,
    };
  }
  if (error.code === "connect_failed" || error.code === "timeout" || error.code === "connection_lost") {
    return {
      ...failure,
      message: `${error.message.replace(/^getMe: /, "")}; check ${baseUrlSetting}; retrying`,
    };
  }
  return failure;
}

function validationDetails(error: HostingError): string {
  const details = Array.isArray(error.details) ? error.details : [];
  const lines = details
    .map((d: unknown) => {
      const detail = d as { path?: unknown; message?: unknown };
      return typeof detail.path === "string" && typeof detail.message === "string"
        ? `${detail.path}: ${detail.message}`
        : undefined;
    })
    .filter((line): line is string => line !== undefined);
  return lines.length > 0 ? lines.join("; ") : error.message;
}
