import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { createHostingMetrics } from "./hosting-metrics.ts";

describe("hosting metrics", () => {
  it("exports the hosting client's events under berth_hosting_*", async () => {
    const registry = new Registry();
    const { observer } = createHostingMetrics(registry);
    const labels = { operation: "getAppStatus", credential: "key-0123456789ab" };
    observer.onRequest?.({ ...labels, status: 200, code: "200", durationSec: 0.02, attempt: 1 });
    observer.onRequest?.({ ...labels, status: undefined, code: "timeout", durationSec: 10, attempt: 2 });
    observer.onLimiterWait?.({ ...labels, priority: "user", waitSec: 0.5 });
    observer.onRateLimited?.({ ...labels, retryAfterSec: 3 });
    observer.onReplay?.({ ...labels, operation: "createApp" });
    observer.onBudget?.({ credential: labels.credential, limit: 300, remaining: 42, resetAtMs: 0 });

    const text = await registry.metrics();
    expect(text).toContain('berth_hosting_requests_total{operation="getAppStatus",code="200"} 1');
    expect(text).toContain('berth_hosting_requests_total{operation="getAppStatus",code="timeout"} 1');
    expect(text).toContain('berth_hosting_request_duration_seconds_count{operation="getAppStatus"} 2');
    expect(text).toContain("berth_hosting_limiter_wait_seconds_sum 0.5");
    expect(text).toContain("berth_hosting_rate_limited_total 1");
    expect(text).toContain('berth_hosting_idempotent_replays_total{operation="createApp"} 1');
    expect(text).toContain('berth_hosting_ratelimit_remaining{credential="key-0123456789ab"} 42');
  });
});
