import { describe, expect, it } from "vitest";
import { HttpTimeoutError } from "../http/client.ts";
import { effectOfStatus, kindOf, mayRepeat, networkFailureOf } from "./classify.ts";

describe("error classification", () => {
  it.each([
    [429, "rate_limited", "safe", "retryable"],
    [429, "rate_limited", "never", "retryable"],
    [409, "request_in_progress", "with-key", "retryable"],
    [503, "service_unavailable", "safe", "retryable"],
    [500, "internal_error", "never", "uncertain"],
    [502, "bad_gateway", "with-key", "uncertain"],
    [400, "validation_failed", "safe", "terminal"],
    [401, "unauthorized", "safe", "terminal"],
    [403, "insufficient_scope", "safe", "terminal"],
    [403, "key_project_restricted", "with-key", "terminal"],
    [402, "insufficient_balance", "never", "terminal"],
    [404, "not_found", "safe", "terminal"],
    [409, "idempotency_conflict", "with-key", "terminal"],
    [409, "app_not_stopped", "never", "terminal"],
    [413, "payload_too_large", "safe", "terminal"],
  ] as const)("HTTP %i %s on a %s call is %s", (status, code, safety, kind) => {
    expect(kindOf(effectOfStatus(status, code), safety)).toBe(kind);
  });

  it("repeats retryable failures only: never an uncertain one, keyed create or not", () => {
    expect(mayRepeat("retryable")).toBe(true);
    expect(mayRepeat("uncertain")).toBe(false);
    expect(mayRepeat("terminal")).toBe(false);
  });

  it("tells a refused connection (nothing sent) from a lost one (maybe acted on)", () => {
    const refused = Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" });
    const wrapped = new Error("fetch failed", { cause: refused });
    const reset = Object.assign(new Error("socket hang up"), { code: "ECONNRESET" });
    expect(networkFailureOf(refused)).toBe("connect_failed");
    expect(networkFailureOf(wrapped)).toBe("connect_failed");
    expect(networkFailureOf(new HttpTimeoutError("connect_timeout", 5000))).toBe("connect_failed");
    expect(networkFailureOf(reset)).toBe("connection_lost");
    expect(networkFailureOf(new HttpTimeoutError("headers_timeout", 5000))).toBe("timeout");
    expect(networkFailureOf(new HttpTimeoutError("body_timeout", 5000))).toBe("timeout");
  });
});
