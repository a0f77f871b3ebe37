import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createSystemClock } from "./clock.ts";
import {
  BudgetWaitError,
  type Permit,
  type Priority,
  RateLimiter,
  type RateLimiterOptions,
} from "./limiter.ts";

const windowMs = 60_000;
const marginMs = 100;

function limiter(options: Partial<RateLimiterOptions> = {}): RateLimiter {
  return new RateLimiter({
    limit: 10,
    windowMs,
    marginMs,
    reserveShare: 0.2,
    cautiousStart: false,
    clock: createSystemClock(),
    ...options,
  });
}

/** Starts `count` acquisitions and records the order in which they are admitted. */
function request(rl: RateLimiter, count: number, priority: Priority, label: string, admitted: string[]) {
  return Array.from({ length: count }, (_, i) =>
    rl.acquire(priority).then((permit) => {
      admitted.push(`${label}${i}`);
      return permit;
    }),
  );
}

async function settle(): Promise<void> {
  await vi.advanceTimersByTimeAsync(0);
}

beforeEach(() => {
  vi.useFakeTimers({ now: 1_000_000 });
});
afterEach(() => {
  vi.useRealTimers();
});

describe("RateLimiter", () => {
  it("admits a full window at once, then the next request a window after the first response", async () => {
    const rl = limiter();
    const admitted: string[] = [];
    const first = await Promise.all(request(rl, 10, "user", "a", admitted));
    request(rl, 1, "user", "b", admitted);
    await settle();
    expect(admitted).toHaveLength(10);

    await vi.advanceTimersByTimeAsync(1_000);
    for (const permit of first) permit.release();
    await vi.advanceTimersByTimeAsync(windowMs + marginMs - 1);
    expect(admitted).not.toContain("b0");
    await vi.advanceTimersByTimeAsync(1);
    expect(admitted).toContain("b0");
  });

  it("counts a request until its response arrives, however long it takes", async () => {
    const rl = limiter({ limit: 2 });
    const admitted: string[] = [];
    const [slow] = await Promise.all(request(rl, 2, "user", "a", admitted));
    request(rl, 1, "user", "b", admitted);
    await vi.advanceTimersByTimeAsync(5 * windowMs);
    expect(admitted).not.toContain("b0");

    slow?.release();
    await vi.advanceTimersByTimeAsync(windowMs + marginMs);
    expect(admitted).toContain("b0");
  });

  it("gives back the place of a request that never left", async () => {
    const rl = limiter({ limit: 1 });
    const admitted: string[] = [];
    const [permit] = await Promise.all(request(rl, 1, "user", "a", admitted));
    request(rl, 1, "user", "b", admitted);
    permit?.cancel();
    await settle();
    expect(admitted).toEqual(["a0", "b0"]);
  });

  it("serves user work before background work, each in arrival order", async () => {
    const rl = limiter({ limit: 10, reserveShare: 0, backgroundMaxWaitMs: 10 * windowMs });
    const admitted: string[] = [];
    const first = await Promise.all(request(rl, 10, "user", "x", admitted));
    request(rl, 2, "background", "bg", admitted);
    request(rl, 2, "user", "u", admitted);
    for (const permit of first) permit.release();
    await vi.advanceTimersByTimeAsync(windowMs + marginMs);
    expect(admitted.slice(10)).toEqual(["u0", "u1", "bg0", "bg1"]);
  });

  it("keeps a share of the window free of background work for user work", async () => {
    const rl = limiter({ limit: 10, reserveShare: 0.2 });
    const admitted: string[] = [];
    request(rl, 10, "background", "bg", admitted);
    await settle();
    expect(admitted).toHaveLength(8);
    request(rl, 2, "user", "u", admitted);
    await settle();
    expect(admitted.slice(8)).toEqual(["u0", "u1"]);
  });

  it("paced, admits background work one pace apart, and user work at once in between", async () => {
    const rl = limiter({ limit: 10, reserveShare: 0.2, paceBackground: true });
    const pace = windowMs / 8;
    const admitted: string[] = [];
    request(rl, 3, "background", "bg", admitted);
    await settle();
    expect(admitted).toEqual(["bg0"]);
    request(rl, 1, "user", "u", admitted);
    await settle();
    expect(admitted).toEqual(["bg0", "u0"]);
    await vi.advanceTimersByTimeAsync(pace - 1);
    expect(admitted).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(admitted).toEqual(["bg0", "u0", "bg1"]);
    await vi.advanceTimersByTimeAsync(pace);
    expect(admitted).toEqual(["bg0", "u0", "bg1", "bg2"]);
  });

  it("keeps the reserve for user work while the service says background work spent the rest", async () => {
    const rl = limiter({ limit: 10, reserveShare: 0.2, paceBackground: true });
    const admitted: string[] = [];
    const first = await rl.acquire("background");
    first.observe({ remaining: 3, resetAtMs: Date.now() + windowMs });
    first.release();
    // Drift asks for far more than its share: it gets one more place, never the reserve.
    request(rl, 20, "background", "bg", admitted);
    await vi.advanceTimersByTimeAsync(windowMs / 4);
    expect(admitted).toEqual(["bg0"]);
    request(rl, 2, "user", "u", admitted);
    await settle();
    expect(admitted).toEqual(["bg0", "u0", "u1"]);
  });

  it("serves the background work turned away longest first, ahead of background work that just came", async () => {
    const rl = limiter({ limit: 10, reserveShare: 0.2, paceBackground: true });
    const pace = windowMs / 8;
    (await rl.acquire("background")).release();
    const turnedAway = rl.acquire("background", undefined, 100, "apps/a").catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(100);
    expect(await turnedAway).toBeInstanceOf(BudgetWaitError);
    const admitted: string[] = [];
    const track = (key: string) =>
      rl.acquire("background", undefined, undefined, key).then((permit) => {
        admitted.push(key);
        permit.release();
      });
    const later = [track("apps/b"), track("apps/a"), track("apps/c")];
    await vi.advanceTimersByTimeAsync(3 * pace);
    await Promise.all(later);
    expect(admitted).toEqual(["apps/a", "apps/b", "apps/c"]);
  });

  it("books background work that just came behind the work turned away before it, at once", async () => {
    const rl = limiter({ limit: 10, reserveShare: 0.2, paceBackground: true });
    const pace = windowMs / 8;
    (await rl.acquire("background")).release();
    const first = rl.acquire("background", undefined, 100, "apps/a").catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(100);
    const bookedA = ((await first) as BudgetWaitError).deferMs;
    const fresh = await rl.acquire("background", undefined, 100, "apps/b").catch((e: unknown) => e);
    expect(fresh).toBeInstanceOf(BudgetWaitError);
    expect((fresh as BudgetWaitError).deferMs).toBe(bookedA + pace);
    // Waiting without a bound, or without a key, is not turned away.
    const unbound = rl.acquire("background", undefined, undefined, "apps/c");
    await vi.advanceTimersByTimeAsync(pace);
    await expect(unbound).resolves.toBeDefined();
  });

  it("paced, makes up turns that passed with no one waiting while drift is booked ahead, two at most", async () => {
    const rl = limiter({ limit: 10, reserveShare: 0.2, paceBackground: true });
    const pace = windowMs / 8;
    (await rl.acquire("background")).release();
    const turnedAway = ["a", "b", "c", "d", "e"].map((key) =>
      rl.acquire("background", undefined, 100, `apps/${key}`).catch(() => undefined),
    );
    await vi.advanceTimersByTimeAsync(100);
    await Promise.all(turnedAway);
    await vi.advanceTimersByTimeAsync(3 * pace);
    expect(rl.backgroundLagMs()).toBeGreaterThan(0);
    const admitted: string[] = [];
    request(rl, 4, "background", "bg", admitted);
    await settle();
    expect(admitted).toEqual(["bg0", "bg1", "bg2"]);
  });

  it("keeps the place in line of background work that came back at its turn and found none", async () => {
    const rl = limiter({ limit: 10, reserveShare: 0.2, paceBackground: true });
    const pace = windowMs / 8;
    (await rl.acquire("background")).release();
    const giveUp = (key: string) => {
      const turnedAway = rl.acquire("background", undefined, 100, key).catch((e: unknown) => e);
      return vi.advanceTimersByTimeAsync(100).then(async () => (await turnedAway) as BudgetWaitError);
    };
    await giveUp("apps/a");
    await giveUp("apps/b");
    const lag = rl.backgroundLagMs();
    // a comes back before its turn and finds none: it tries again a pace later, the line unchanged.
    expect((await giveUp("apps/a")).deferMs).toBe(pace);
    expect(rl.backgroundLagMs()).toBe(lag - 100);
  });

  it("does not starve background work: an aged background waiter goes ahead of later user work", async () => {
    const rl = limiter({ limit: 1, reserveShare: 0, backgroundMaxWaitMs: 30_000 });
    const admitted: string[] = [];
    const [held] = await Promise.all(request(rl, 1, "user", "x", admitted));
    request(rl, 1, "background", "bg", admitted);
    await vi.advanceTimersByTimeAsync(31_000);
    request(rl, 1, "user", "u", admitted);
    held?.release();
    await vi.advanceTimersByTimeAsync(windowMs + marginMs);
    expect(admitted).toEqual(["x0", "bg0"]);
  });

  it("admits no more than the service's X-RateLimit-Remaining until its reset", async () => {
    const rl = limiter({ limit: 100 });
    const admitted: string[] = [];
    const [reporter] = await Promise.all(request(rl, 1, "user", "a", admitted));
    reporter?.observe({ remaining: 2, resetAtMs: Date.now() + 10_000 });
    reporter?.release();
    request(rl, 5, "user", "b", admitted);
    await settle();
    expect(admitted).toEqual(["a0", "b0", "b1"]);
    await vi.advanceTimersByTimeAsync(10_000 + marginMs);
    expect(admitted).toHaveLength(6);
  });

  it("charges requests admitted after the reporting one against its remaining count", async () => {
    const rl = limiter({ limit: 100 });
    const admitted: string[] = [];
    const [reporter] = await Promise.all(request(rl, 3, "user", "a", admitted));
    // Two requests left after `reporter` before its response said 2 remained: nothing is left.
    reporter?.observe({ remaining: 2, resetAtMs: Date.now() + 10_000 });
    request(rl, 1, "user", "b", admitted);
    await settle();
    expect(admitted).not.toContain("b0");
  });

  it("lowers the limit to a smaller X-RateLimit-Limit", async () => {
    const rl = limiter({ limit: 10 });
    const admitted: string[] = [];
    const [reporter] = await Promise.all(request(rl, 1, "user", "a", admitted));
    reporter?.observe({ limit: 3, remaining: 2, resetAtMs: Date.now() + windowMs });
    request(rl, 5, "user", "b", admitted);
    await settle();
    expect(rl.limit).toBe(3);
    expect(admitted).toEqual(["a0", "b0", "b1"]);
  });

  it("does not raise the limit for a larger X-RateLimit-Limit (the user's bucket may be the binding one)", async () => {
    const rl = limiter({ limit: 10 });
    const [reporter] = await Promise.all([rl.acquire("user")]);
    reporter?.observe({ limit: 600, remaining: 500, resetAtMs: Date.now() + windowMs });
    expect(rl.limit).toBe(10);
  });

  it("spends what the service says is left, beyond its own cautious count", async () => {
    const rl = limiter({ limit: 10 });
    const admitted: string[] = [];
    const first = await Promise.all(request(rl, 10, "user", "a", admitted));
    // Slow answers: the log counts each until a window after its response, the service from its arrival.
    await vi.advanceTimersByTimeAsync(3_000);
    first[9]?.observe({ remaining: 0, resetAtMs: 1_000_000 + windowMs });
    for (const permit of first) permit.release();
    const waiting = request(rl, 5, "user", "b", admitted);
    await vi.advanceTimersByTimeAsync(windowMs - 3_000 + marginMs);
    // The log is full for three more seconds; the service's window has room again: one request asks.
    expect(admitted.slice(10)).toEqual(["b0"]);
    const probe = await waiting[0];
    probe?.observe({ remaining: 9, resetAtMs: Date.now() + 1_000 });
    probe?.release();
    await settle();
    expect(admitted.slice(10)).toEqual(["b0", "b1", "b2", "b3", "b4"]);
  });

  it("after the service's reset, sends one request at a time to learn the new budget", async () => {
    const rl = limiter({ limit: 2 });
    const admitted: string[] = [];
    const [a, b] = await Promise.all(request(rl, 2, "user", "a", admitted));
    b?.observe({ remaining: 0, resetAtMs: Date.now() + 5_000 });
    a?.release();
    b?.release();
    const waiting = request(rl, 3, "user", "c", admitted);
    await vi.advanceTimersByTimeAsync(5_000 + marginMs);
    expect(admitted).toEqual(["a0", "a1", "c0"]);
    const probe = await waiting[0];
    probe?.observe({ remaining: 1, resetAtMs: Date.now() + 5_000 });
    probe?.release();
    await settle();
    expect(admitted).toEqual(["a0", "a1", "c0", "c1"]);
  });

  it("starts with one request at a time, and takes the first response's budget before a burst", async () => {
    const rl = limiter({ limit: 100, cautiousStart: true });
    const admitted: string[] = [];
    const [first] = await Promise.all(request(rl, 1, "user", "a", admitted));
    request(rl, 10, "user", "b", admitted);
    await settle();
    expect(admitted).toEqual(["a0"]);
    // Another process already used most of this window.
    first?.observe({ remaining: 3, resetAtMs: Date.now() + 10_000 });
    first?.release();
    await settle();
    expect(admitted).toEqual(["a0", "b0", "b1", "b2"]);
  });

  it("counts charged requests (made before the limiter was attached) for a full window", async () => {
    const rl = limiter({ limit: 3 });
    const admitted: string[] = [];
    rl.charge(2);
    request(rl, 2, "user", "a", admitted);
    await settle();
    expect(admitted).toEqual(["a0"]);
    await vi.advanceTimersByTimeAsync(windowMs + marginMs);
    expect(admitted).toEqual(["a0", "a1"]);
  });

  it("admits nothing while paused by a Retry-After", async () => {
    const rl = limiter();
    const admitted: string[] = [];
    rl.pauseUntil(Date.now() + 5_000);
    request(rl, 1, "user", "a", admitted);
    await vi.advanceTimersByTimeAsync(4_999);
    expect(admitted).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(admitted).toEqual(["a0"]);
  });

  it("drops an aborted waiter without admitting it", async () => {
    const rl = limiter({ limit: 1 });
    const admitted: string[] = [];
    const [held] = await Promise.all(request(rl, 1, "user", "a", admitted));
    const aborter = new AbortController();
    const abandoned = rl.acquire("user", aborter.signal);
    aborter.abort(new Error("gave up"));
    await expect(abandoned).rejects.toThrow("gave up");
    expect(rl.waiting).toBe(0);
    held?.release();
    expect(rl.used).toBe(1);
  });

  it("reports how long a permit waited", async () => {
    const rl = limiter({ limit: 1 });
    const [held] = await Promise.all([rl.acquire("user")]);
    const next = rl.acquire("user");
    await vi.advanceTimersByTimeAsync(2_000);
    held?.release();
    await vi.advanceTimersByTimeAsync(windowMs + marginMs);
    const permit: Permit = await next;
    expect(permit.waitedMs).toBe(2_000 + windowMs + marginMs);
  });

  describe("with a bound on the wait", () => {
    it("gives up after the bound, saying when the budget is expected, and leaves the queue", async () => {
      const rl = limiter({ limit: 2 });
      const held = await Promise.all([rl.acquire("user"), rl.acquire("user")]);
      for (const permit of held) permit.release();
      const waiting = rl.acquire("background", undefined, 1_000);
      const outcome = waiting.then(
        () => "granted",
        (error: unknown) => error,
      );
      await vi.advanceTimersByTimeAsync(999);
      expect(rl.waiting).toBe(1);
      await vi.advanceTimersByTimeAsync(1);
      const error = await outcome;
      expect(error).toBeInstanceOf(BudgetWaitError);
      expect(error).toMatchObject({ code: "deferred" });
      // Room comes a window (and its margin) after the two responses, 1 s of which has passed.
      expect((error as BudgetWaitError).deferMs).toBe(windowMs + marginMs - 1_000);
      expect(rl.waiting).toBe(0);
    });

    it("is granted as usual when room comes within the bound", async () => {
      const rl = limiter({ limit: 1 });
      const first = await rl.acquire("user");
      const second = rl.acquire("user", undefined, 1_000);
      await vi.advanceTimersByTimeAsync(500);
      first.cancel();
      await expect(second).resolves.toMatchObject({ waitedMs: 500 });
      await vi.advanceTimersByTimeAsync(1_000);
      expect(rl.waiting).toBe(0);
    });

    it("books background work that gave up evenly, one background pace apart, and reports the lag", async () => {
      const rl = limiter({ limit: 10, reserveShare: 0.2 });
      const admitted: string[] = [];
      // Ten requests in flight: only a finishing one can make room, so the window says nothing.
      const held = await Promise.all(request(rl, 10, "user", "a", admitted));
      const gaveUp = [1, 2, 3].map(() =>
        rl.acquire("background", undefined, 100).catch((error: unknown) => error),
      );
      await vi.advanceTimersByTimeAsync(100);
      const pace = windowMs / 8;
      expect(rl.backgroundPaceMs()).toBe(pace);
      const delays = ((await Promise.all(gaveUp)) as BudgetWaitError[]).map((e) => e.deferMs);
      expect(delays).toEqual([pace, 2 * pace, 3 * pace]);
      expect(rl.backgroundLagMs()).toBe(3 * pace);
      await vi.advanceTimersByTimeAsync(pace);
      expect(rl.backgroundLagMs()).toBe(2 * pace);
      for (const permit of held) permit.release();
    });

    it("books background work turned away while an answer may change the budget at its pace, not a window out", async () => {
      const rl = limiter({ limit: 10, reserveShare: 0.2 });
      const admitted: string[] = [];
      const counted = await Promise.all(request(rl, 8, "user", "a", admitted));
      counted[7]?.observe({ remaining: 1, resetAtMs: Date.now() + 1_000 });
      for (const permit of counted) permit.release();
      // The service's report lapsed; until the call now in flight answers, background room is unknown.
      await vi.advanceTimersByTimeAsync(1_000 + marginMs);
      const inFlight = await rl.acquire("user");
      const waiting = rl.acquire("background", undefined, 100).catch((error: unknown) => error);
      await vi.advanceTimersByTimeAsync(100);
      expect(((await waiting) as BudgetWaitError).deferMs).toBe(windowMs / 8);
      inFlight.release();
    });

    it("keeps a background key's place in line when its admitted request never leaves", async () => {
      const rl = limiter({ limit: 10, reserveShare: 0.2 });
      const held = await Promise.all(request(rl, 10, "user", "a", []));
      const turnedAway = rl.acquire("background", undefined, 100, "x").catch((error: unknown) => error);
      await vi.advanceTimersByTimeAsync(100);
      expect(await turnedAway).toBeInstanceOf(BudgetWaitError);
      for (const permit of held) permit.cancel();
      // Room again, but drift is booked ahead: a key not in line is turned away at once ...
      await expect(rl.acquire("background", undefined, 100, "y")).rejects.toBeInstanceOf(BudgetWaitError);
      // ... while x, in line, is admitted; its request never leaves (the user's budget said no, say).
      (await rl.acquire("background", undefined, 100, "x")).cancel();
      await expect(rl.acquire("background", undefined, 100, "x")).resolves.toBeDefined();
    });

    it("expects user work no sooner than the pace of the user waiters ahead of it", async () => {
      const rl = limiter({ limit: 10 });
      const admitted: string[] = [];
      const held = await Promise.all(request(rl, 10, "user", "a", admitted));
      request(rl, 3, "user", "u", admitted);
      const waiting = rl.acquire("user", undefined, 100).catch((error: unknown) => error);
      await vi.advanceTimersByTimeAsync(100);
      expect(((await waiting) as BudgetWaitError).deferMs).toBe(4 * (windowMs / 10));
      for (const permit of held) permit.release();
    });

    it("expects user work turned away only by calls in flight the service may not have counted back soon", async () => {
      const rl = limiter({ limit: 100 });
      const admitted: string[] = [];
      const held = await Promise.all(request(rl, 4, "user", "a", admitted));
      // Four in flight; the first to answer says 3 are left: 0 if the other three were not counted yet.
      held[0]?.observe({ remaining: 3, resetAtMs: Date.now() + windowMs });
      held[0]?.release();
      const waiting = rl.acquire("user", undefined, 100).catch((error: unknown) => error);
      await vi.advanceTimersByTimeAsync(100);
      expect(((await waiting) as BudgetWaitError).deferMs).toBe(2_000);
      // Counted for certain (nothing was in flight): no room until the reset.
      held[1]?.observe({ remaining: 0, resetAtMs: Date.now() + windowMs });
      for (const permit of held.slice(1)) permit.release();
      const later = rl.acquire("user", undefined, 100).catch((error: unknown) => error);
      await vi.advanceTimersByTimeAsync(100);
      expect(((await later) as BudgetWaitError).deferMs).toBeGreaterThan(50_000);
    });
  });
});
