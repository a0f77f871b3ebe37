import { describe, expect, it } from "vitest";
import { readHeaders } from "./headers.ts";

describe("readHeaders", () => {
  it("reads the request id, replay flag and rate-limit budget", () => {
    const facts = readHeaders(
      {
        "x-request-id": "req_1",
        "idempotent-replayed": "true",
        "x-ratelimit-limit": "300",
        "x-ratelimit-remaining": "12",
        "x-ratelimit-reset": "1900000000",
      },
      0,
    );
    expect(facts).toEqual({
      requestId: "req_1",
      replayed: true,
      retryAfterSec: undefined,
      budget: { limit: 300, remaining: 12, resetAtMs: 1_900_000_000_000 },
    });
  });

  it("reads Retry-After as seconds or as an HTTP date", () => {
    const now = Date.parse("2030-01-01T00:00:00Z");
    expect(readHeaders({ "retry-after": "5" }, now).retryAfterSec).toBe(5);
    expect(readHeaders({ "retry-after": "Tue, 01 Jan 2030 00:00:09 GMT" }, now).retryAfterSec).toBe(9);
    expect(readHeaders({ "retry-after": "soon" }, now).retryAfterSec).toBeUndefined();
  });

  it("ignores a partial or malformed budget", () => {
    expect(readHeaders({ "x-ratelimit-remaining": "5" }, 0).budget).toBeUndefined();
    expect(
      readHeaders({ "x-ratelimit-remaining": "-1", "x-ratelimit-reset": "1" }, 0).budget,
    ).toBeUndefined();
  });
});
