import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { createDriftMetrics, type DriftReading } from "./metrics.ts";

describe("drift metrics", () => {
  it("exports the drift lag and the effective interval per credential as read at scrape time", async () => {
    const registry = new Registry();
    let readings: DriftReading[] = [{ credential: "key-a", lagSeconds: 40, effectiveIntervalSeconds: 60 }];
    createDriftMetrics(registry, () => readings);
    const text = await registry.metrics();
    expect(text).toContain('berth_drift_lag_seconds{credential="key-a"} 40');
    expect(text).toContain('berth_drift_effective_interval_seconds{credential="key-a"} 60');
    readings = [{ credential: "key-b", lagSeconds: 0, effectiveIntervalSeconds: 20 }];
    const later = await registry.metrics();
    expect(later).not.toContain("key-a");
    expect(later).toContain('berth_drift_lag_seconds{credential="key-b"} 0');
  });
});
