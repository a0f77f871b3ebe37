import { describe, expect, it } from "vitest";
import { createLogger } from "../telemetry/logger.ts";
import { KubeApiError } from "./errors.ts";
import { EventRecorder, type EventSeries, type EventSink } from "./events.ts";
import type { KubeObject } from "./object.ts";

interface Written {
  name: string;
  namespace: string;
  body: Record<string, unknown>;
  series: EventSeries[];
}

/** An in-memory sink that can be made to fail or to hold writes until released. */
class MemorySink implements EventSink {
  readonly events: Written[] = [];
  fail: Error | undefined;
  #gate: Promise<void> = Promise.resolve();

  hold(): () => void {
    let release = () => {};
    this.#gate = new Promise((resolve) => {
      release = resolve;
    });
    return release;
  }

  async create(namespace: string, event: Record<string, unknown>): Promise<void> {
    await this.#gate;
    if (this.fail) throw this.fail;
    const { name } = event.metadata as { name: string };
    const series = event.series ? [event.series as EventSeries] : [];
    this.events.push({ name, namespace, body: event, series });
  }

  async updateSeries(namespace: string, name: string, series: EventSeries): Promise<void> {
    await this.#gate;
    const event = this.events.find((e) => e.namespace === namespace && e.name === name);
    if (event === undefined) throw new KubeApiError("not_found", 404, `events "${name}" not found`);
    event.series.push(series);
  }
}

const widget: KubeObject = {
  apiVersion: "example.dev/v1",
  kind: "Widget",
  metadata: { name: "w1", namespace: "team", uid: "u-1", resourceVersion: "7" },
};

function recorder(sink: EventSink, clock: { now: number }) {
  return new EventRecorder({
    sink,
    logger: createLogger({ level: "silent" }),
    reportingInstance: "berth-7f9c-abcde",
    windowMs: 60_000,
    now: () => clock.now,
  });
}

describe("EventRecorder", () => {
  it("creates an events.k8s.io/v1 Event about the object with MicroTime and the reporting fields", async () => {
    const sink = new MemorySink();
    const clock = { now: Date.UTC(2026, 0, 2, 3, 4, 5, 123) + 0.456 };
    const events = recorder(sink, clock);
    events.record(
      widget,
      "Warning",
      "BuildFailed",
      "Build b1 failed at step install (request req-1).",
      "Build",
    );
    await events.flush();

    expect(sink.events).toHaveLength(1);
    const [event] = sink.events;
    expect(event?.namespace).toBe("team");
    expect(event?.name).toMatch(/^w1\.[0-9a-f]+$/);
    expect(event?.body).toMatchObject({
      apiVersion: "events.k8s.io/v1",
      kind: "Event",
      eventTime: "2026-01-02T03:04:05.123456Z",
      reportingController: "berth.dev/operator",
      reportingInstance: "berth-7f9c-abcde",
      action: "Build",
      reason: "BuildFailed",
      note: "Build b1 failed at step install (request req-1).",
      type: "Warning",
      regarding: { apiVersion: "example.dev/v1", kind: "Widget", name: "w1", namespace: "team", uid: "u-1" },
    });
    expect(event?.body.series).toBeUndefined();
  });

  it("turns repeats within the window into one Event whose series counts them", async () => {
    const sink = new MemorySink();
    const clock = { now: 1_000_000 };
    const events = recorder(sink, clock);
    for (let i = 0; i < 3; i++) {
      events.record(widget, "Normal", "Started", "App started.");
      await events.flush();
      clock.now += 10_000;
    }
    expect(sink.events).toHaveLength(1);
    expect(sink.events[0]?.series.map((s) => s.count)).toEqual([2, 3]);
    expect(sink.events[0]?.series.at(-1)?.lastObservedTime).toMatch(
      /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/,
    );
  });

  it("keeps different reasons, notes or objects apart, and starts a new Event after the window", async () => {
    const sink = new MemorySink();
    const clock = { now: 1_000_000 };
    const events = recorder(sink, clock);
    events.record(widget, "Normal", "Started", "App started.");
    events.record(widget, "Normal", "Started", "App started again.");
    events.record(widget, "Normal", "Stopped", "App started.");
    events.record(
      { ...widget, metadata: { ...widget.metadata, name: "w2", uid: "u-2" } },
      "Normal",
      "Started",
      "App started.",
    );
    await events.flush();
    expect(sink.events).toHaveLength(4);

    clock.now += 60_001;
    events.record(widget, "Normal", "Started", "App started.");
    await events.flush();
    expect(sink.events).toHaveLength(5);
  });

  it("collapses a burst arriving during a write into one series update with the final count", async () => {
    const sink = new MemorySink();
    const clock = { now: 1_000_000 };
    const events = recorder(sink, clock);
    const release = sink.hold();
    for (let i = 0; i < 10; i++) events.record(widget, "Warning", "RateLimited", "Throttled by the service.");
    release();
    await events.flush();
    const counts = sink.events.flatMap((e) => [
      e.body.series ? (e.body.series as EventSeries).count : 1,
      ...e.series.map((s) => s.count),
    ]);
    expect(sink.events).toHaveLength(1);
    expect(counts.at(-1)).toBe(10);
    expect(counts.length).toBeLessThanOrEqual(2);
  });

  it("starts a new Event when the series' Event has expired", async () => {
    const sink = new MemorySink();
    const clock = { now: 1_000_000 };
    const events = recorder(sink, clock);
    events.record(widget, "Normal", "Started", "App started.");
    await events.flush();
    sink.events.length = 0;
    events.record(widget, "Normal", "Started", "App started.");
    await events.flush();
    expect(sink.events).toHaveLength(1);
    expect(sink.events[0]?.body.series).toBeUndefined();
  });

  it("never throws into the caller, even when the API refuses or the object lacks a kind", async () => {
    const sink = new MemorySink();
    sink.fail = new KubeApiError("forbidden", 403, "events is forbidden");
    const events = recorder(sink, { now: 1 });
    expect(() => events.record(widget, "Normal", "Started", "App started.")).not.toThrow();
    expect(() => events.record({ metadata: { name: "bare" } }, "Normal", "Started", "x")).not.toThrow();
    await expect(events.flush()).resolves.toBeUndefined();
  });
});
