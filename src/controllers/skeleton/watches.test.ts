import { describe, expect, it } from "vitest";
import type { KubeObject, Source } from "../../runtime/index.ts";
import { meaningfulChanges } from "./watches.ts";

const project = (status: Record<string, unknown>, resourceVersion = "1"): KubeObject => ({
  metadata: { name: "demo", namespace: "team", resourceVersion, generation: 1 },
  spec: {},
  status,
});

const failing = (requestId: string, message: string) => ({
  projectId: undefined,
  lastRequestId: requestId,
  conditions: [
    {
      type: "Reconciling",
      status: "True",
      reason: "HostingError",
      message,
      lastTransitionTime: "2026-01-01T00:00:00Z",
    },
  ],
});

/** The updates a dependant watching through `meaningfulChanges` is told of. */
function updatesSeen(changes: [KubeObject, KubeObject][], ignoredStatus: string[] = []): number {
  let handlers: Parameters<Source["on"]>[0] = {};
  const source: Source = {
    on: (h) => {
      handlers = h;
      return () => undefined;
    },
    list: () => [],
    waitForSync: async () => undefined,
  };
  let seen = 0;
  meaningfulChanges(source, ignoredStatus).on({ update: () => seen++ });
  for (const [before, after] of changes) handlers.update?.(before, after);
  return seen;
}

describe("meaningfulChanges: what wakes dependants", () => {
  it("ignores a status that differs only in its request ID, messages and resourceVersion", () => {
    const before = project(failing("req_1", "creating failed (request req_1)"), "1");
    const after = project(failing("req_2", "creating failed (request req_2)"), "2");
    expect(updatesSeen([[before, after]])).toBe(0);
  });

  it.each([
    ["an external ID learned", { ...failing("req_1", "m"), projectId: "p_1" }],
    [
      "a condition's status or reason",
      {
        ...failing("req_1", "m"),
        conditions: [{ type: "Ready", status: "True", reason: "Succeeded", message: "m" }],
      },
    ],
  ])("wakes them on %s", (_, status) => {
    expect(updatesSeen([[project(failing("req_1", "m")), project(status)]])).toBe(1);
  });

  it("ignores the status fields the dependants never read, and wakes them on the rest", () => {
    const base = { ...failing("req_1", "m"), projectId: "p_1" };
    const costed = (hourly: string) => project({ ...base, cost: { hourly } });
    expect(updatesSeen([[costed("0.01"), costed("0.02")]], ["cost"])).toBe(0);
    expect(updatesSeen([[costed("0.01"), costed("0.02")]])).toBe(1);
    const ready = project({
      ...base,
      cost: { hourly: "0.02" },
      conditions: [{ type: "Ready", status: "True" }],
    });
    expect(updatesSeen([[costed("0.01"), ready]], ["cost"])).toBe(1);
  });

  it("wakes them on a deletion starting", () => {
    const before = project(failing("req_1", "m"));
    const after = { ...before, metadata: { ...before.metadata, deletionTimestamp: "2026-01-01T00:00:00Z" } };
    expect(updatesSeen([[before, after]])).toBe(1);
  });
});
