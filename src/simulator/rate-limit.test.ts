import { describe, expect, it } from "vitest";
import { RateLimiter } from "./rate-limit.ts";

const harsh = { fixedWindows: false, rejectedRequestsFree: false };
const lenient = { fixedWindows: true, rejectedRequestsFree: true };

describe("RateLimiter", () => {
  const limiter = () => new RateLimiter({ perCredential: 2, perUser: 3, windowSec: 60 });
  const buckets = (key: string) => [
    { key, limit: 2 },
    { key: "user", limit: 3 },
  ];

  describe("sliding window (default)", () => {
    it("frees a slot exactly one window after each request, and says when", () => {
      const l = limiter();
      expect(l.take(buckets("a"), 0, harsh)).toEqual({
        allowed: true,
        limit: 2,
        remaining: 1,
        resetAt: 60_000,
      });
      expect(l.take(buckets("a"), 10_000, harsh)).toEqual({
        allowed: true,
        limit: 2,
        remaining: 0,
        resetAt: 60_000,
      });
      expect(l.take(buckets("a"), 59_999, harsh).allowed).toBe(false);
      // Refused requests count too: with those at 59 999 and 60 000 in the window, room returns
      // only when 59 999 leaves it.
      expect(l.take(buckets("a"), 60_000, harsh)).toMatchObject({ allowed: false, resetAt: 119_999 });
    });

    it("gives a burst across a fixed-window boundary nothing extra", () => {
      const l = limiter();
      l.take(buckets("a"), 59_000, harsh);
      l.take(buckets("a"), 59_500, harsh);
      expect(l.take(buckets("a"), 60_000, harsh).allowed).toBe(false);
      expect(l.take(buckets("a"), 61_000, harsh).allowed).toBe(false);
    });

    it("counts refused requests, so hammering keeps a key shut out", () => {
      const l = limiter();
      l.take(buckets("a"), 0, harsh);
      l.take(buckets("a"), 0, harsh);
      for (let at = 1000; at < 60_000; at += 1000)
        expect(l.take(buckets("a"), at, harsh).allowed).toBe(false);
      expect(l.take(buckets("a"), 60_000, harsh).allowed).toBe(false);
    });

    it("reports the bucket with the fewest requests left", () => {
      const l = limiter();
      l.take(buckets("a"), 0, harsh);
      l.take(buckets("b"), 0, harsh);
      expect(l.take(buckets("c"), 0, harsh)).toMatchObject({ allowed: true, limit: 3, remaining: 0 });
    });
  });

  describe("lenient switches", () => {
    it("fixedWindows: counts per aligned window", () => {
      const l = limiter();
      expect(l.take(buckets("a"), 0, lenient)).toEqual({
        allowed: true,
        limit: 2,
        remaining: 1,
        resetAt: 60_000,
      });
      // A tie (1 left in each) names the credential's bucket.
      expect(l.take(buckets("b"), 1000, lenient)).toEqual({
        allowed: true,
        limit: 2,
        remaining: 1,
        resetAt: 60_000,
      });
      expect(l.take(buckets("a"), 2000, lenient)).toMatchObject({ allowed: true, remaining: 0 });
      expect(l.take(buckets("b"), 3000, lenient)).toMatchObject({ allowed: false, limit: 3, remaining: 0 });
      expect(l.take(buckets("b"), 60_000, lenient)).toEqual({
        allowed: true,
        limit: 2,
        remaining: 1,
        resetAt: 120_000,
      });
    });

    it("rejectedRequestsFree: a refused request counts in no bucket", () => {
      const l = limiter();
      l.take(buckets("a"), 0, lenient);
      l.take(buckets("a"), 0, lenient);
      expect(l.take(buckets("a"), 0, lenient).allowed).toBe(false);
      expect(l.take(buckets("b"), 0, lenient)).toMatchObject({ allowed: true, remaining: 0, limit: 3 });
    });
  });
});
