import { describe, expect, it } from "vitest";
import { deferFirstRead, lookAgain } from "./schedule.ts";

describe("deferFirstRead (after a restart)", () => {
  const timing = { now: 1_000, intervalMs: 600_000, random: () => 0.5 };
  const fresh = () => ({
    driftDueAt: undefined as number | undefined,
    readGeneration: undefined as number | undefined,
  });

  it("spreads a settled resource's first read over the drift interval", () => {
    const memory = fresh();
    expect(deferFirstRead(memory, { generation: 3, settled: true }, timing, "driftDueAt")).toBe(true);
    expect(memory).toEqual({ driftDueAt: 301_000, readGeneration: 3 });
  });

  it.each([
    ["not settled (a spec change, a request, not Ready)", fresh(), false],
    ["already scheduled", { driftDueAt: 5, readGeneration: undefined }, true],
    ["already read once", { driftDueAt: undefined, readGeneration: 3 }, true],
  ])("reads at once when %s", (_, memory, settled) => {
    expect(deferFirstRead(memory, { generation: 3, settled }, timing, "driftDueAt")).toBe(false);
  });
});

describe("lookAgain", () => {
  it.each([
    [
      "a change still in progress comes back as a change",
      true,
      { kind: "requeueAfter", ms: 2_000, inProgress: true },
    ],
    ["a settled resource's drift check goes in the background", false, { kind: "requeueAfter", ms: 2_000 }],
  ])("%s", (_, inProgress, expected) => {
    expect(lookAgain(3_000, 1_000, inProgress)).toEqual(expected);
  });

  it("is done when nothing is due, and never asks for a negative delay", () => {
    expect(lookAgain(undefined, 1_000, true)).toEqual({ kind: "done" });
    expect(lookAgain(500, 1_000, false)).toEqual({ kind: "requeueAfter", ms: 0 });
  });
});
