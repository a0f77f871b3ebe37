import { describe, expect, it } from "vitest";
import { Backoff, reflectorBackoff } from "./backoff.ts";

describe("Backoff", () => {
  it("doubles from 0.8 s to a 30 s cap, and starts over after a healthy period", () => {
    let now = 0;
    const backoff = new Backoff(
      reflectorBackoff,
      () => now,
      () => 0,
    );
    const delays = Array.from({ length: 8 }, () => {
      now += 1000;
      return backoff.next();
    });
    expect(delays).toEqual([800, 1600, 3200, 6400, 12_800, 25_600, 30_000, 30_000]);
    now += reflectorBackoff.resetAfterMs + 1;
    expect(backoff.next()).toBe(800);
  });

  it("adds up to the jitter fraction at random", () => {
    const backoff = new Backoff(
      reflectorBackoff,
      () => 0,
      () => 0.5,
    );
    expect(backoff.next()).toBe(1200);
  });
});
