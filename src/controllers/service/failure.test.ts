import { describe, expect, it } from "vitest";
import { HostingApiError, HostingNetworkError } from "../../hosting/index.ts";
import { describeConnectFailure, describeFailure } from "./failure.ts";
import { Reason } from "./reasons.ts";

const api = (status: number, code: string, extra: { requiredScopes?: string[]; kind?: "terminal" } = {}) =>
  new HostingApiError({
    status,
    code,
    kind: extra.kind ?? (status >= 500 || status === 429 ? "retryable" : "terminal"),
    operation: "createApp",
    message: `service says ${code}`,
    requestId: "req_1",
    requiredScopes: extra.requiredScopes,
  });

describe("describeFailure", () => {
  it.each([
    [401, "unauthorized", Reason.CredentialsRejected, true],
    [403, "insufficient_scope", Reason.MissingScopes, true],
    [403, "key_project_restricted", Reason.KeyProjectRestricted, true],
    [403, "account_frozen", Reason.AccountFrozen, true],
    [403, "forbidden", Reason.Forbidden, true],
    [402, "insufficient_balance", Reason.InsufficientBalance, true],
    [400, "validation_failed", Reason.InvalidSpec, true],
    [409, "name_taken", Reason.InvalidSpec, true],
    [404, "not_found", Reason.ExternalNotFound, true],
    [429, "rate_limited", Reason.RateLimited, false],
    [503, "service_unavailable", Reason.HostingError, false],
    [409, "app_not_stopped", Reason.HostingError, false],
  ])("HTTP %i %s → %s (stalled %s)", (status, code, reason, stalled) => {
    const failure = describeFailure(api(status, code), "creating the app");
    expect(failure.reason).toBe(reason);
    expect(failure.stalled).toBe(stalled);
    expect(failure.message).toMatch(/^creating the app failed: /);
    expect(failure.message).toContain("req_1");
  });

  it("names the missing scopes", () => {
    const failure = describeFailure(
      api(403, "insufficient_scope", { requiredScopes: ["apps:write", "compute:spend"] }),
      "creating the app",
    );
    expect(failure.message).toContain("apps:write, compute:spend");
    expect(failure.refreshIdentity).toBe(true);
  });

  it("marks failures where the service may have acted as uncertain", () => {
    const error = new HostingNetworkError({
      code: "connection_lost",
      kind: "uncertain",
      operation: "createApp",
      message: "the connection closed before the response arrived",
      sent: true,
    });
    const failure = describeFailure(error, "creating the app");
    expect(failure).toMatchObject({ stalled: false, uncertain: true, reason: Reason.HostingError });
  });
});

describe("describeConnectFailure: the key's first call names the Secret to fix", () => {
  const source = {
    baseUrl: "http://api.test",
    secret: "team/berth-credentials",
    baseUrlFrom: "secret",
  } as const;
  const me = (status: number, code: string) =>
    new HostingApiError({
      status,
      code,
      kind: "terminal",
      operation: "getMe",
      message: code,
      requestId: "req_9",
    });

  it("tells a base URL without /v1 (GET /me answers 404) apart from an object that is gone", () => {
    const failure = describeConnectFailure(me(404, "not_found"), source);
    expect(failure.reason).toBe(Reason.WrongBaseUrl);
    expect(failure.stalled).toBe(true);
    expect(failure.message).toBe(
      'GET http://api.test/me answered 404, so http://api.test is not the API\'s base URL: set "baseUrl" of Secret team/berth-credentials to the URL ending in /v1 (e.g. https://host/v1)',
    );
    expect(
      describeConnectFailure(me(404, "unexpected_status"), { ...source, baseUrlFrom: "flag" }).message,
    ).toContain("set the operator's --hosting-base-url");
  });

  it("names the Secret whose key the service rejected", () => {
    const failure = describeConnectFailure(me(401, "unauthorized"), source);
    expect(failure.reason).toBe(Reason.CredentialsRejected);
    expect(failure.message).toContain("API key in Secret team/berth-credentials");
  });

  it("names the URL, the cause and the Secret of an unreachable service, and retries", () => {
    const error = new HostingNetworkError({
      code: "connect_failed",
      kind: "retryable",
      operation: "getMe",
      message: "could not connect to http://api.test/me: connection refused (nothing listens on that port)",
      sent: false,
    });
    const failure = describeConnectFailure(error, source);
    expect(failure.stalled).toBe(false);
    expect(failure.message).toBe(
      'could not connect to http://api.test/me: connection refused (nothing listens on that port) (connect_failed); check "baseUrl" of Secret team/berth-credentials; retrying',
    );
  });
});
