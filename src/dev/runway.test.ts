import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { createCostMetrics } from "../telemetry/cost-metrics.ts";
import { runwayLines } from "./runway.ts";

describe("runwayLines", () => {
  it("reads the operator's cost metrics into one runway line per credential with a balance", async () => {
    const registry = new Registry();
    createCostMetrics(registry).track({
      resources: () => [],
      shortOfBalance: () => [],
      credentials: () => [
        {
          credential: "key-0123456789ab",
          balance: { amount: 0.5, currency: "USD" },
          spend: { amount: 0.025, currency: "USD" },
          runwayHours: 20,
        },
        { credential: "key-without-scope", spend: { amount: 1, currency: "USD" } },
      ],
    });
    expect(await runwayLines(registry)).toBe(
      "RUNWAY key-0123456789ab: 20.0 h (balance 0.5 USD, spend 0.025 USD/h)\n",
    );
  });
});
