import { Registry } from "prom-client";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createWorkqueueMetrics } from "../telemetry/metrics.ts";
import { controllerRateLimiter, ExponentialRateLimiter, TokenBucketRateLimiter } from "./rate-limiter.ts";
import { WorkQueue } from "./workqueue.ts";

/** Whether `promise` has settled after pending microtasks ran. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => {
    done = true;
  });
  await vi.advanceTimersByTimeAsync(0);
  return done;
}

/** Takes every key that is ready now, marking each done. */
async function drainReady(queue: WorkQueue): Promise<string[]> {
  const keys: string[] = [];
  while (queue.length > 0) {
    const key = await queue.get();
    if (key === undefined) break;
    keys.push(key);
    queue.done(key);
  }
  return keys;
}

beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(() => {
  vi.useRealTimers();
});

describe("WorkQueue", () => {
  it("queues a key once however often it is added, in first-added order", async () => {
    const queue = new WorkQueue({ name: "t" });
    queue.add("a");
    queue.add("b");
    queue.add("a");
    expect(queue.length).toBe(2);
    expect(await queue.get()).toBe("a");
    expect(await queue.get()).toBe("b");
  });

  it("never hands one key to two workers; a key re-added while processed runs again after done", async () => {
    const queue = new WorkQueue({ name: "t" });
    queue.add("a");
    const first = await queue.get();
    expect(first).toBe("a");

    queue.add("a");
    queue.add("a");
    expect(queue.length).toBe(0);
    const second = queue.get();
    expect(await settled(second)).toBe(false);

    queue.done("a");
    expect(await second).toBe("a");
    queue.done("a");
    expect(queue.length).toBe(0);
  });

  it("hands out other keys while one is processed", async () => {
    const queue = new WorkQueue({ name: "t" });
    queue.add("a");
    await queue.get();
    queue.add("a");
    queue.add("b");
    expect(await queue.get()).toBe("b");
  });

  it("adds a delayed key when its delay passes, keeping the earliest of several delays", async () => {
    const queue = new WorkQueue({ name: "t" });
    queue.addAfter("a", 1000);
    queue.addAfter("a", 5000);
    queue.addAfter("b", 5000);
    queue.addAfter("b", 2000);
    await vi.advanceTimersByTimeAsync(999);
    expect(queue.length).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(await drainReady(queue)).toEqual(["a"]);
    await vi.advanceTimersByTimeAsync(1000);
    expect(await drainReady(queue)).toEqual(["b"]);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(queue.length).toBe(0);
  });

  it("backs off a failing key exponentially and starts over after forget", async () => {
    const queue = new WorkQueue({ name: "t" });
    const readyAfter = async (): Promise<number> => {
      queue.addRateLimited("a");
      let waited = 0;
      while (queue.length === 0) {
        await vi.advanceTimersByTimeAsync(1);
        waited += 1;
      }
      await drainReady(queue);
      return waited;
    };
    expect(await readyAfter()).toBe(5);
    expect(await readyAfter()).toBe(10);
    expect(await readyAfter()).toBe(20);
    expect(await readyAfter()).toBe(40);
    expect(queue.retries("a")).toBe(4);
    queue.forget("a");
    expect(queue.retries("a")).toBe(0);
    expect(await readyAfter()).toBe(5);
  });

  it("limits retries of many keys together with the token bucket (10/s after a burst of 100)", async () => {
    const queue = new WorkQueue({ name: "t" });
    for (let i = 0; i < 120; i++) queue.addRateLimited(`k${i}`);
    await vi.advanceTimersByTimeAsync(5);
    expect(queue.length).toBe(100);
    await vi.advanceTimersByTimeAsync(95);
    expect(queue.length).toBe(101);
    await vi.advanceTimersByTimeAsync(1900);
    expect(queue.length).toBe(120);
  });

  it("stops handing out keys at shut down: waiting and later gets resolve undefined, adds are ignored", async () => {
    const queue = new WorkQueue({ name: "t" });
    const waiting = queue.get();
    queue.shutDown();
    expect(await waiting).toBeUndefined();
    queue.add("a");
    queue.addAfter("b", 10);
    await vi.advanceTimersByTimeAsync(100);
    expect(queue.length).toBe(0);
    expect(await queue.get()).toBeUndefined();
  });

  it("drains on shut down: resolves only once the keys being processed are done", async () => {
    const queue = new WorkQueue({ name: "t" });
    queue.add("a");
    queue.add("b");
    queue.add("c");
    await queue.get();
    await queue.get();
    const drained = queue.shutDownWithDrain();
    expect(await queue.get()).toBeUndefined();
    queue.done("a");
    expect(await settled(drained)).toBe(false);
    queue.done("b");
    expect(await settled(drained)).toBe(true);
  });

  it("reports depth, adds, retries and in-flight work in the workqueue metrics", async () => {
    const registry = new Registry();
    const queue = new WorkQueue({ name: "widgets", metrics: createWorkqueueMetrics(registry) });
    queue.add("a");
    queue.add("b");
    queue.add("a");
    queue.addRateLimited("c");
    await queue.get();
    await vi.advanceTimersByTimeAsync(3000);
    const value = async (metric: string) =>
      (await registry.getSingleMetric(metric)?.get())?.values.find((v) => v.labels.name === "widgets")?.value;
    expect(await value("workqueue_adds_total")).toBe(3);
    expect(await value("workqueue_depth")).toBe(2);
    expect(await value("workqueue_retries_total")).toBe(1);
    expect(await value("workqueue_longest_running_processor_seconds")).toBe(3);
  });
});

describe("WorkQueue priorities", () => {
  type Step = ["add", string, "change" | "background"] | ["take"] | ["done", string] | ["wait", number];

  /** Runs `steps`; returns the keys `take` handed out, in order. */
  async function run(steps: Step[], agingMs = 10_000): Promise<string[]> {
    const queue = new WorkQueue({ name: "t", backgroundAgingMs: agingMs });
    const taken: string[] = [];
    for (const step of steps) {
      if (step[0] === "add") queue.add(step[1], step[2]);
      if (step[0] === "take") taken.push((await queue.get()) ?? "none");
      if (step[0] === "done") queue.done(step[1]);
      if (step[0] === "wait") await vi.advanceTimersByTimeAsync(step[1]);
    }
    return taken;
  }

  it.each<[string, Step[], string[]]>([
    [
      "changes before background keys, FIFO within each",
      [
        ["add", "b1", "background"],
        ["add", "c1", "change"],
        ["add", "b2", "background"],
        ["add", "c2", "change"],
        ["take"],
        ["take"],
        ["take"],
        ["take"],
      ],
      ["c1", "c2", "b1", "b2"],
    ],
    [
      "a background key added again as a change moves up, keeping its place in time",
      [
        ["add", "b1", "background"],
        ["add", "b2", "background"],
        ["add", "c1", "change"],
        ["add", "b2", "change"],
        ["take"],
        ["take"],
        ["take"],
      ],
      ["c1", "b2", "b1"],
    ],
    [
      "a change added again as background stays a change, and is queued once",
      [
        ["add", "c1", "change"],
        ["add", "b1", "background"],
        ["add", "c1", "background"],
        ["take"],
        ["take"],
        ["add", "x", "background"],
        ["take"],
      ],
      ["c1", "b1", "x"],
    ],
    [
      "a key added while processed comes back at the highest priority it was added with",
      [
        ["add", "k", "background"],
        ["add", "b1", "background"],
        ["take"],
        ["add", "k", "background"],
        ["add", "k", "change"],
        ["add", "c1", "change"],
        ["done", "k"],
        ["take"],
        ["take"],
        ["take"],
      ],
      ["k", "c1", "k", "b1"],
    ],
  ])("%s", async (_, steps, expected) => {
    expect(await run(steps)).toEqual(expected);
  });

  it("never starves a background key behind a stream of changes (controller-runtime #3496)", async () => {
    const queue = new WorkQueue({ name: "t", backgroundAgingMs: 5_000 });
    queue.add("drift", "background");
    let servedAtMs: number | undefined;
    // One change arrives every 100 ms and a worker takes one key every 100 ms: changes alone would
    // keep the single worker busy forever.
    for (let tick = 0; tick < 200 && servedAtMs === undefined; tick++) {
      queue.add(`change-${tick}`, "change");
      const key = await queue.get();
      if (key === "drift") servedAtMs = tick * 100;
      else if (key !== undefined) queue.done(key);
      await vi.advanceTimersByTimeAsync(100);
    }
    expect(servedAtMs).toBe(5_000);
  });

  it("serves aged background keys every other time, so changes still get half the workers", async () => {
    const queue = new WorkQueue({ name: "t", backgroundAgingMs: 1_000 });
    for (let i = 0; i < 4; i++) queue.add(`b${i}`, "background");
    await vi.advanceTimersByTimeAsync(1_000);
    for (let i = 0; i < 4; i++) queue.add(`c${i}`, "change");
    expect(await drainReady(queue)).toEqual(["b0", "c0", "b1", "c1", "b2", "c2", "b3", "c3"]);
  });

  it("keeps a delayed key's highest priority when two delays meet", async () => {
    const queue = new WorkQueue({ name: "t" });
    queue.addAfter("a", 1_000, "background");
    queue.addAfter("a", 5_000, "change");
    queue.addAfter("b", 2_000, "background");
    await vi.advanceTimersByTimeAsync(2_000);
    expect(queue.lengthOf("change")).toBe(1);
    expect(await drainReady(queue)).toEqual(["a", "b"]);
  });

  it("says how long the oldest key of a priority has waited", async () => {
    const queue = new WorkQueue({ name: "t" });
    expect(queue.oldestWaitMs("background")).toBe(0);
    queue.add("a", "background");
    await vi.advanceTimersByTimeAsync(1_000);
    queue.add("b", "background");
    await vi.advanceTimersByTimeAsync(500);
    expect(queue.oldestWaitMs("background")).toBe(1_500);
    queue.add("a", "change");
    expect(queue.oldestWaitMs("background")).toBe(500);
    expect(queue.oldestWaitMs("change")).toBe(1_500);
  });

  it("says at which priority a key being processed was handed out", async () => {
    const queue = new WorkQueue({ name: "t" });
    queue.add("a", "background");
    expect(await queue.get()).toBe("a");
    expect(queue.processingPriority("a")).toBe("background");
    queue.done("a");
    expect(queue.processingPriority("a")).toBeUndefined();
  });
});

describe("rate limiters", () => {
  it("grows per-key delays from 5 ms, doubling, capped at 1000 s, per key", () => {
    const limiter = new ExponentialRateLimiter();
    const delays = Array.from({ length: 30 }, () => limiter.when("a"));
    expect(delays.slice(0, 4)).toEqual([5, 10, 20, 40]);
    expect(delays.at(-1)).toBe(1_000_000);
    expect(limiter.when("b")).toBe(5);
  });

  it("hands out a burst of tokens, then one per 1/qps, refilling over time", () => {
    let now = 0;
    const bucket = new TokenBucketRateLimiter(10, 100, () => now);
    for (let i = 0; i < 100; i++) expect(bucket.when()).toBe(0);
    expect(bucket.when()).toBeCloseTo(100);
    expect(bucket.when()).toBeCloseTo(200);
    now = 10_000;
    expect(bucket.when()).toBe(0);
  });

  it("combines both: the per-key delay unless the bucket is empty", () => {
    let now = 0;
    const limiter = controllerRateLimiter({ baseDelayMs: 1, perSecond: 1, burst: 1, now: () => now });
    expect(limiter.when("a")).toBe(1);
    expect(limiter.when("b")).toBeCloseTo(1000);
    now = 5000;
    expect(limiter.when("a")).toBe(2);
  });
});
