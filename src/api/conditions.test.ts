import { describe, expect, it } from "vitest";
import {
  applyConditionChange,
  type Condition,
  ConditionType,
  conditionSchema,
  getCondition,
  isTrue,
  Reason,
  ready,
  reconciling,
  removeCondition,
  setCondition,
  stalled,
  timestamp,
} from "./conditions.ts";

const t0 = new Date("2025-03-01T10:00:00.123Z");
const t1 = new Date("2025-03-01T10:05:00.456Z");

describe("setCondition", () => {
  it("adds a condition with the transition time in whole seconds", () => {
    const result = setCondition(
      undefined,
      { type: "Built", status: "True", reason: Reason.Succeeded, message: "built", observedGeneration: 1 },
      t0,
    );
    expect(result).toEqual([
      {
        type: "Built",
        status: "True",
        reason: "Succeeded",
        message: "built",
        observedGeneration: 1,
        lastTransitionTime: "2025-03-01T10:00:00Z",
      },
    ]);
  });

  it("keeps lastTransitionTime when only reason, message or generation change", () => {
    const first = setCondition(
      [],
      { type: "Ready", status: "False", reason: "Building", message: "a", observedGeneration: 1 },
      t0,
    );
    const second = setCondition(
      first,
      { type: "Ready", status: "False", reason: "BuildFailed", message: "b", observedGeneration: 2 },
      t1,
    );
    expect(second[0]).toMatchObject({ reason: "BuildFailed", message: "b", observedGeneration: 2 });
    expect(second[0]?.lastTransitionTime).toBe("2025-03-01T10:00:00Z");
  });

  it("moves lastTransitionTime when the status changes", () => {
    const first = setCondition([], { type: "Ready", status: "False", reason: "Building", message: "a" }, t0);
    const second = setCondition(
      first,
      { type: "Ready", status: "True", reason: "Succeeded", message: "b" },
      t1,
    );
    expect(second[0]?.lastTransitionTime).toBe("2025-03-01T10:05:00Z");
  });

  it("replaces in place, keeps other conditions and does not mutate its input", () => {
    const start: Condition[] = [
      {
        type: "Built",
        status: "True",
        reason: "Succeeded",
        message: "",
        lastTransitionTime: "2025-01-01T00:00:00Z",
      },
      {
        type: "Ready",
        status: "False",
        reason: "Building",
        message: "",
        lastTransitionTime: "2025-01-01T00:00:00Z",
      },
    ];
    const snapshot = structuredClone(start);
    const result = setCondition(
      start,
      { type: "Built", status: "False", reason: "BuildFailed", message: "x" },
      t1,
    );
    expect(result.map((c) => c.type)).toEqual(["Built", "Ready"]);
    expect(result[1]).toBe(start[1]);
    expect(start).toEqual(snapshot);
  });
});

describe("getCondition, isTrue, removeCondition", () => {
  const conditions = setCondition(
    [],
    { type: "Ready", status: "True", reason: "Succeeded", message: "" },
    t0,
  );

  it("finds conditions by type", () => {
    expect(getCondition(conditions, "Ready")?.status).toBe("True");
    expect(getCondition(conditions, "Stalled")).toBeUndefined();
    expect(getCondition(undefined, "Ready")).toBeUndefined();
  });

  it("is true only for status True", () => {
    expect(isTrue(conditions, "Ready")).toBe(true);
    expect(isTrue(conditions, "Stalled")).toBe(false);
    const unknown = setCondition(
      conditions,
      { type: "Ready", status: "Unknown", reason: "Progressing", message: "" },
      t1,
    );
    expect(isTrue(unknown, "Ready")).toBe(false);
  });

  it("removes by type", () => {
    expect(removeCondition(conditions, "Ready")).toEqual([]);
    expect(removeCondition(undefined, "Ready")).toEqual([]);
  });
});

describe("kstatus helpers", () => {
  const types = (conditions: Condition[]) => Object.fromEntries(conditions.map((c) => [c.type, c.status]));

  it("reconciling: Reconciling True, Ready Unknown with the same reason, Stalled removed", () => {
    const before = applyConditionChange([], stalled(Reason.InvalidSpec, "fix it", 1), t0);
    const after = applyConditionChange(before, reconciling(Reason.Building, "building image", 2), t1);
    expect(types(after)).toEqual({ Ready: "Unknown", Reconciling: "True" });
    expect(getCondition(after, ConditionType.Ready)).toMatchObject({
      reason: "Building",
      observedGeneration: 2,
    });
  });

  it("stalled: Stalled True, Ready False, Reconciling removed", () => {
    const before = applyConditionChange([], reconciling(Reason.Progressing, "starting", 1), t0);
    const after = applyConditionChange(
      before,
      stalled(Reason.MissingScopes, "the key lacks compute:spend", 1),
      t1,
    );
    expect(types(after)).toEqual({ Ready: "False", Stalled: "True" });
    expect(getCondition(after, ConditionType.Stalled)?.message).toBe("the key lacks compute:spend");
  });

  it("ready: Ready True and neither abnormal condition present", () => {
    const before = applyConditionChange([], stalled(Reason.BuildFailed, "step 3 failed", 1), t0);
    const after = applyConditionChange(before, ready(Reason.Succeeded, "running at https://x", 2), t1);
    expect(types(after)).toEqual({ Ready: "True" });
  });

  it("keeps domain conditions untouched", () => {
    const built = setCondition(
      [],
      { type: ConditionType.Built, status: "True", reason: "Succeeded", message: "" },
      t0,
    );
    const after = applyConditionChange(built, ready(Reason.Succeeded, "ok", 1), t1);
    expect(types(after)).toEqual({ Built: "True", Ready: "True" });
  });

  it("produces conditions the status schema accepts, for every reason", () => {
    for (const reason of Object.values(Reason)) {
      for (const change of [ready(reason, "m", 1), reconciling(reason, "m", 1), stalled(reason, "m", 1)]) {
        for (const condition of applyConditionChange([], change, t0)) {
          expect(conditionSchema.safeParse(condition).success).toBe(true);
        }
      }
    }
  });
});

describe("timestamp", () => {
  it("drops fractional seconds, as Kubernetes times do", () => {
    expect(timestamp(t0)).toBe("2025-03-01T10:00:00Z");
  });
});
