import { describe, expect, it } from "vitest";
import { maxEcho, pendingRequest, reconcileRequest } from "./annotations.ts";

const annotated = (value: string) => ({
  metadata: { annotations: { "berth.dev/reconcile-requested-at": value } },
});

describe("reconcileRequest", () => {
  it("echoes a value that fits status as it is", () => {
    expect(reconcileRequest(annotated("2030-01-01T00:00:00Z"))).toBe("2030-01-01T00:00:00Z");
  });

  it("echoes a value too long for status as its digest, so status stays writable", () => {
    const long = "x".repeat(300);
    const echo = reconcileRequest(annotated(long)) ?? "";
    expect(echo).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(echo.length).toBeLessThanOrEqual(maxEcho);
    expect(reconcileRequest(annotated(`${long}y`))).not.toBe(echo);
    // Once echoed, the same long value is no longer pending.
    expect(pendingRequest(reconcileRequest(annotated(long)), echo)).toBeUndefined();
  });

  it("falls back to Flux's annotation", () => {
    expect(
      reconcileRequest({ metadata: { annotations: { "reconcile.fluxcd.io/requestedAt": "now" } } }),
    ).toBe("now");
  });
});
