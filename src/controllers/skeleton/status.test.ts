import { describe, expect, it } from "vitest";
import type { Condition } from "../../api/conditions.ts";
import { onlyRequestIdsDiffer } from "./status.ts";

const ready = (message: string): Condition => ({
  type: "Ready",
  status: "True",
  reason: "Succeeded",
  message,
  observedGeneration: 1,
  lastTransitionTime: "2030-01-01T00:00:00Z",
});

describe("onlyRequestIdsDiffer", () => {
  const before = { lastRequestId: "req_1", conditions: [ready("running at https://a (request req_1)")] };

  it("is true for a drift read that found nothing new: no status write", () => {
    const after = { lastRequestId: "req_2", conditions: [ready("running at https://a (request req_2)")] };
    expect(onlyRequestIdsDiffer(before, after)).toBe(true);
  });

  it.each([
    [
      "a new message",
      { lastRequestId: "req_2", conditions: [ready("running at https://b (request req_2)")] },
    ],
    ["another field", { ...before, url: "https://b" }],
    ["nothing at all (the patcher writes nothing anyway)", before],
  ])("is false for %s", (_, after) => {
    expect(onlyRequestIdsDiffer(before, after)).toBe(false);
  });

  it("is false on the first write", () => {
    expect(onlyRequestIdsDiffer(undefined, before)).toBe(false);
  });
});
