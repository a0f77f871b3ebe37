import { describe, expect, it } from "vitest";
import { untilFirstExpiry } from "./status.ts";

const now = new Date("2026-01-01T12:00:00Z");
const ttl = 90_000;
const made = (since: string) => ({ resource: "App/a", uid: "u", hourly: "0.10", adds: "0.10", since });

describe("untilFirstExpiry", () => {
  it.each([
    { case: "no commitment: nothing to wait for", since: [], ms: undefined },
    { case: "the earliest of several", since: ["2026-01-01T11:59:50Z", "2026-01-01T11:59:00Z"], ms: 30_000 },
    { case: "one past its lifetime: at once", since: ["2026-01-01T11:00:00Z"], ms: 0 },
  ])("$case", ({ since, ms }) => {
    expect(untilFirstExpiry(since.map(made), now, ttl)).toBe(ms);
  });
});
