import { describe, expect, it } from "vitest";
import type { Kind, Resource } from "./cluster.ts";
import { converge } from "./convergence.ts";
import { steppingClock } from "./invariant-fixtures.ts";

/** A watch whose readings go as scripted: a number of resources still waiting, or a failed reading. */
function scripted(readings: (number | Error)[]) {
  let index = -1;
  const observed: number[] = [];
  return {
    observed,
    watch: {
      read: async () => {
        index++;
        const reading = readings[Math.min(index, readings.length - 1)];
        if (reading instanceof Error) throw reading;
        return new Map<Kind, Resource[]>();
      },
      observe: (_lists: Map<Kind, Resource[]>, at: number) => {
        observed.push(at);
      },
      unsettled: () => {
        const reading = readings[Math.min(index, readings.length - 1)];
        return typeof reading === "number" ? Array.from({ length: reading }, (_, i) => `r-${i}`) : ["?"];
      },
    },
  };
}

const timing = { timeoutMs: 10_000, intervalMs: 1000, startedAt: 0 };

describe("waiting for convergence", () => {
  it("ends at the first reading that finds every resource settled, at the time that reading started", async () => {
    const { watch, observed } = scripted([2, 1, 0, 5]);
    const result = await converge(watch, timing, steppingClock(100_000));
    expect(result).toEqual({ convergedAt: 102_000, unsettled: [], failedReadings: [] });
    expect(observed).toEqual([100_000, 101_000, 102_000]);
  });

  it("runs out of time with what was still waiting", async () => {
    const { watch, observed } = scripted([3, 2]);
    const result = await converge(watch, timing, steppingClock(0));
    expect(result).toEqual({ convergedAt: undefined, unsettled: ["r-0", "r-1"], failedReadings: [] });
    expect(observed).toHaveLength(10);
  });

  it("counts each failed reading, with when and why, and goes on reading", async () => {
    const { watch } = scripted([new Error("connect ECONNREFUSED"), new Error("503"), 0]);
    const result = await converge(watch, { ...timing, startedAt: -40_000 }, steppingClock(0));
    expect(result).toEqual({
      convergedAt: 2000,
      unsettled: [],
      failedReadings: ["t+40s (converging): Error: connect ECONNREFUSED", "t+41s (converging): Error: 503"],
    });
  });
});
