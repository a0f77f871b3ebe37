import { afterEach, describe, expect, it, vi } from "vitest";
import { createLogger } from "../telemetry/logger.ts";
import { exposedGc, HeapTrimmer } from "./heap-trim.ts";

const logger = createLogger({ level: "silent" });

describe("HeapTrimmer", () => {
  afterEach(() => vi.useRealTimers());

  it("collects once after a whole quiet interval, and again only after more work", async () => {
    vi.useFakeTimers();
    let busy = true;
    const collect = vi.fn();
    const trimmer = new HeapTrimmer({ busy: () => busy, logger, collect, slackBytes: 0 });
    trimmer.start();
    await vi.advanceTimersByTimeAsync(5000);
    expect(collect).not.toHaveBeenCalled();
    busy = false;
    await vi.advanceTimersByTimeAsync(1000);
    expect(collect).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1000);
    expect(collect).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(collect).toHaveBeenCalledTimes(1);
    busy = true;
    await vi.advanceTimersByTimeAsync(1000);
    busy = false;
    await vi.advanceTimersByTimeAsync(2000);
    expect(collect).toHaveBeenCalledTimes(2);
    await trimmer.stop();
  });

  it("leaves a heap without slack alone", async () => {
    vi.useFakeTimers();
    const collect = vi.fn();
    const trimmer = new HeapTrimmer({
      busy: () => false,
      logger,
      collect,
      slackBytes: Number.MAX_SAFE_INTEGER,
    });
    trimmer.start();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(collect).not.toHaveBeenCalled();
    await trimmer.stop();
  });

  it("reaches V8's collector without --expose-gc", async () => {
    const collect = exposedGc();
    expect(collect).toBeTypeOf("function");
    // Only a collection clears a WeakRef whose target nothing else holds.
    const collected = new WeakRef({ garbage: Array.from({ length: 1000 }, (_, i) => ({ i })) });
    // A WeakRef keeps its target alive until the job that made it ends.
    await new Promise((resolve) => setImmediate(resolve));
    collect?.();
    expect(collected.deref()).toBeUndefined();
  });
});
