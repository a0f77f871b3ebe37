import { Counter, Gauge, Histogram, type Registry } from "prom-client";
import type { HostingObserver } from "../hosting/observer.ts";

export interface HostingMetrics {
  requests: Counter<"operation" | "code">;
  requestDuration: Histogram<"operation">;
  limiterWait: Histogram;
  rateLimited: Counter;
  idempotentReplays: Counter<"operation">;
  rateLimitRemaining: Gauge<"credential">;
  /** The hooks to pass to the hosting client as `observer`. */
  observer: HostingObserver;
}

const latencyBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const waitBuckets = [0, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 120];

/** Prometheus metrics of the hosting client. `credential` is a non-secret key id, never the key. */
export function createHostingMetrics(registry: Registry): HostingMetrics {
  const registers = [registry];
  const requests = new Counter({
    name: "berth_hosting_requests_total",
    help: "Hosting API requests by operation and HTTP status code (or client error code when no response came)",
    labelNames: ["operation", "code"],
    registers,
  });
  const requestDuration = new Histogram({
    name: "berth_hosting_request_duration_seconds",
    help: "Hosting API request latency by operation, excluding limiter waits",
    labelNames: ["operation"],
    buckets: latencyBuckets,
    registers,
  });
  const limiterWait = new Histogram({
    name: "berth_hosting_limiter_wait_seconds",
    help: "Time requests waited for the client-side rate limiter",
    buckets: waitBuckets,
    registers,
  });
  const rateLimited = new Counter({
    name: "berth_hosting_rate_limited_total",
    help: "Hosting API responses with status 429",
    registers,
  });
  const idempotentReplays = new Counter({
    name: "berth_hosting_idempotent_replays_total",
    help: "Creates answered with a replayed response (Idempotent-Replayed: true)",
    labelNames: ["operation"],
    registers,
  });
  const rateLimitRemaining = new Gauge({
    name: "berth_hosting_ratelimit_remaining",
    help: "X-RateLimit-Remaining of the last hosting API response, per credential",
    labelNames: ["credential"],
    registers,
  });
  return {
    requests,
    requestDuration,
    limiterWait,
    rateLimited,
    idempotentReplays,
    rateLimitRemaining,
    observer: {
      onRequest: ({ operation, code, durationSec }) => {
        requests.inc({ operation, code });
        requestDuration.observe({ operation }, durationSec);
      },
      onLimiterWait: ({ waitSec }) => limiterWait.observe(waitSec),
      onRateLimited: () => rateLimited.inc(),
      onReplay: ({ operation }) => idempotentReplays.inc({ operation }),
      onBudget: ({ credential, remaining }) => rateLimitRemaining.set({ credential }, remaining),
    },
  };
}
