import { describe, expect, it } from "vitest";
import { HostingApiError, HostingNetworkError } from "../../hosting/index.ts";
import { describeFailure } from "./failure.ts";
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
