import { Registry } from "prom-client";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createLogger } from "../telemetry/logger.ts";
import { createControllerMetrics } from "../telemetry/metrics.ts";
import { KubeApiError } from "./errors.ts";
import { applyOutcome, isDeferral, Outcome } from "./outcome.ts";
import { type QueuePriority, WorkQueue } from "./workqueue.ts";

let registry: Registry;
let queue: WorkQueue;
let apply: (outcome: Outcome, priority?: QueuePriority) => void;

async function counter(name: string, labels: Record<string, string>): Promise<number> {
  const values = (await registry.getSingleMetric(name)?.get())?.values ?? [];
  const match = values.find((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l));
  return match?.value ?? 0;
}

/** Whether the key comes back within `ms`. */
async function requeuedWithin(ms: number): Promise<boolean> {
  await vi.advanceTimersByTimeAsync(ms);
  return queue.length > 0;
}

beforeEach(async () => {
  vi.useFakeTimers();
  registry = new Registry();
  queue = new WorkQueue({ name: "widgets" });
  const metrics = createControllerMetrics(registry);
  const logger = createLogger({ level: "silent" });
  // The key is being processed, as it is when a reconcile returns.
  queue.add("ns/a");
  await queue.get();
  apply = (outcome, priority = "change") => {
    applyOutcome(outcome, { controller: "widgets", key: "ns/a", priority, queue, metrics, logger });
    queue.done("ns/a");
  };
});

afterEach(() => {
  vi.useRealTimers();
});

describe("applyOutcome", () => {
  it("done: forgets the key's failures and does not requeue", async () => {
    apply(Outcome.error(new Error("a failure first")));
    await vi.advanceTimersByTimeAsync(10);
    await queue.get();
    expect(queue.retries("ns/a")).toBe(1);
    apply(Outcome.done());
    expect(queue.retries("ns/a")).toBe(0);
    expect(await requeuedWithin(3_600_000)).toBe(false);
    expect(await counter("controller_runtime_reconcile_total", { result: "success" })).toBe(1);
  });

  it("requeueAfter: comes back after exactly that delay, counted as requeue_after", async () => {
    apply(Outcome.requeueAfter(30_000));
    expect(await requeuedWithin(29_999)).toBe(false);
    expect(await requeuedWithin(1)).toBe(true);
    expect(await counter("controller_runtime_reconcile_total", { result: "requeue_after" })).toBe(1);
  });

  it("requeueAfter(0): again soon, but a key that keeps asking backs off (no spin), until it settles", async () => {
    for (const wait of [5, 10, 20, 40]) {
      apply(Outcome.requeueAfter(0));
      expect(await requeuedWithin(wait - 1)).toBe(false);
      expect(await requeuedWithin(1)).toBe(true);
      await queue.get();
    }
    expect(await counter("controller_runtime_reconcile_total", { result: "requeue" })).toBe(4);
    apply(Outcome.requeueAfter(1_000));
    expect(queue.retries("ns/a")).toBe(0);
  });

  it("error: retried with growing per-key backoff and counted as an error", async () => {
    apply(Outcome.error(new Error("boom")));
    expect(await requeuedWithin(4)).toBe(false);
    expect(await requeuedWithin(1)).toBe(true);
    await queue.get();
    apply(Outcome.error(new Error("boom")));
    expect(await requeuedWithin(9)).toBe(false);
    expect(await requeuedWithin(1)).toBe(true);
    expect(await counter("controller_runtime_reconcile_errors_total", { controller: "widgets" })).toBe(2);
    expect(await counter("controller_runtime_reconcile_total", { result: "error" })).toBe(2);
  });

  it("a 409 conflict: retried with backoff but counted as a requeue, not an error", async () => {
    apply(Outcome.error(new KubeApiError("conflict", 409, "the object has been modified")));
    expect(await requeuedWithin(5)).toBe(true);
    expect(await counter("controller_runtime_reconcile_total", { result: "requeue" })).toBe(1);
    expect(await counter("controller_runtime_reconcile_errors_total", { controller: "widgets" })).toBe(0);
  });

  it("terminal: never retried on its own, failures forgotten, counted as a terminal error", async () => {
    apply(Outcome.error(new Error("a failure first")));
    await vi.advanceTimersByTimeAsync(10);
    await queue.get();
    expect(queue.retries("ns/a")).toBe(1);
    apply(Outcome.terminal(new Error("spec names a missing project")));
    expect(await requeuedWithin(3_600_000)).toBe(false);
    expect(queue.retries("ns/a")).toBe(0);
    expect(
      await counter("controller_runtime_terminal_reconcile_errors_total", { controller: "widgets" }),
    ).toBe(1);
    // One for the first failure, one for the terminal one.
    expect(await counter("controller_runtime_reconcile_errors_total", { controller: "widgets" })).toBe(2);
  });

  it("requeueAfter comes back in the background; a follow-up keeps the priority it ran at", async () => {
    apply(Outcome.requeueAfter(1_000), "change");
    await vi.advanceTimersByTimeAsync(1_000);
    expect(queue.lengthOf("background")).toBe(1);
    await queue.get();
    apply(Outcome.followUpAfter(1_000), "change");
    await vi.advanceTimersByTimeAsync(1_000);
    expect(queue.lengthOf("change")).toBe(1);
  });

  it("a change still in progress comes back as a change, even when a background wake ran it", async () => {
    apply(Outcome.inProgressAfter(1_000), "background");
    await vi.advanceTimersByTimeAsync(1_000);
    expect(queue.lengthOf("change")).toBe(1);
    expect(queue.lengthOf("background")).toBe(0);
  });

  it("errors are retried at the priority the key ran at", async () => {
    apply(Outcome.error(new Error("boom")), "background");
    await vi.advanceTimersByTimeAsync(10);
    expect(queue.lengthOf("background")).toBe(1);
    await queue.get();
    apply(Outcome.error(new Error("boom")), "change");
    await vi.advanceTimersByTimeAsync(20);
    expect(queue.lengthOf("change")).toBe(1);
  });

  it("deferred: back after its delay at the same priority, the backoff untouched, not an error", async () => {
    apply(Outcome.error(new Error("a failure first")));
    await vi.advanceTimersByTimeAsync(10);
    await queue.get();
    apply(Outcome.deferred(4_000), "change");
    expect(queue.retries("ns/a")).toBe(1);
    expect(await requeuedWithin(3_999)).toBe(false);
    expect(await requeuedWithin(1)).toBe(true);
    expect(queue.lengthOf("change")).toBe(1);
    expect(await counter("berth_reconcile_deferred_total", { controller: "widgets" })).toBe(1);
    expect(await counter("controller_runtime_reconcile_errors_total", { controller: "widgets" })).toBe(1);
  });
});

describe("isDeferral", () => {
  it("recognises any error of the deferral's shape, and nothing else", () => {
    class Elsewhere extends Error {
      readonly code = "deferred";
      readonly deferMs = 2_000;
    }
    expect(isDeferral(new Elsewhere())).toBe(true);
    expect(isDeferral({ code: "deferred", deferMs: Number.NaN })).toBe(false);
    expect(isDeferral({ code: "rate_limited", deferMs: 1 })).toBe(false);
    expect(isDeferral(new Error("deferred"))).toBe(false);
    expect(isDeferral(undefined)).toBe(false);
  });
});
