import { describe, expect, it } from "vitest";
import { RateLimiter } from "./rate-limit.ts";

describe("RateLimiter", () => {
  const limiter = () => new RateLimiter({ perCredential: 2, perUser: 3, windowSec: 60 });
  const buckets = (key: string) => [
    { key, limit: 2 },
    { key: "user", limit: 3 },
  ];

  it("counts fixed windows and reports the bucket with the fewest requests left", () => {
    const l = limiter();
    expect(l.take(buckets("a"), 0)).toEqual({ allowed: true, limit: 2, remaining: 1, resetAt: 60_000 });
    // A tie (1 left in each) names the credential's bucket.
    expect(l.take(buckets("b"), 1000)).toEqual({ allowed: true, limit: 2, remaining: 1, resetAt: 60_000 });
    expect(l.take(buckets("a"), 2000)).toMatchObject({ allowed: true, remaining: 0 });
    expect(l.take(buckets("b"), 3000)).toMatchObject({ allowed: false, limit: 3, remaining: 0 });
    expect(l.take(buckets("b"), 60_000)).toEqual({ allowed: true, limit: 2, remaining: 1, resetAt: 120_000 });
  });

  it("a refused request counts in no bucket", () => {
    const l = limiter();
    l.take(buckets("a"), 0);
    l.take(buckets("a"), 0);
    expect(l.take(buckets("a"), 0).allowed).toBe(false);
    expect(l.take(buckets("b"), 0)).toMatchObject({ allowed: true, remaining: 0, limit: 3 });
  });
});
