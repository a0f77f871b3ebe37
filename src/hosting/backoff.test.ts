import { describe, expect, it } from "vitest";
import { type BackoffPolicy, backoffMs, retryDelayMs } from "./backoff.ts";

const policy: BackoffPolicy = { maxAttempts: 6, baseMs: 100, capMs: 1_000, maxServerWaitMs: 60_000 };

describe("backoff", () => {
  it("doubles per retry up to the cap, with half of each wait random", () => {
    expect([1, 2, 3, 4, 5].map((retry) => backoffMs(retry, policy, () => 1))).toEqual([
      100, 200, 400, 800, 1_000,
    ]);
    expect([1, 2, 3, 4, 5].map((retry) => backoffMs(retry, policy, () => 0))).toEqual([
      50, 100, 200, 400, 500,
    ]);
  });

  it("never waits less than the service asked", () => {
    expect(retryDelayMs(1, 7, policy, () => 0)).toBe(7_000);
    expect(retryDelayMs(1, 7, policy, () => 1)).toBe(7_700);
    expect(retryDelayMs(5, 0, policy, () => 1)).toBe(1_000);
  });
});
