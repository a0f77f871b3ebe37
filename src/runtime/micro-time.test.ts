import { describe, expect, it } from "vitest";
import { microTime } from "./micro-time.ts";

describe("microTime", () => {
  it("formats RFC 3339 UTC with exactly six fractional digits", () => {
    const ms = Date.UTC(2026, 0, 2, 3, 4, 5, 123) + 0.456;
    expect(microTime(ms)).toBe("2026-01-02T03:04:05.123456Z");
    expect(microTime(Date.UTC(2026, 0, 2, 3, 4, 5))).toBe("2026-01-02T03:04:05.000000Z");
  });
});
