import { describe, expect, it } from "vitest";
import type { Condition } from "../../../api/conditions.ts";
import { outputsOf, withOutputs } from "./hook.ts";
import type { OutputSyncResult } from "./writer.ts";

const now = new Date("2030-01-01T00:00:00Z");
const readyTrue: Condition = {
  type: "Ready",
  status: "True",
  reason: "Succeeded",
  message: "ready",
  lastTransitionTime: "2029-12-31T00:00:00Z",
};
const type = { group: "berth.dev", version: "v1alpha1", plural: "projects", kind: "Project" };
const object = { metadata: { name: "demo", namespace: "team", uid: "uid-1" } };
const conflict = { stalled: true, reason: "OutputConflict", message: "ConfigMap x exists" } as const;

function resource(configMapName?: string, recorded?: string) {
  return {
    metadata: { uid: "uid-1", annotations: { "berth.dev/reconcile-requested-at": "r1" } },
    spec: configMapName === undefined ? {} : { outputs: { configMapName } },
    status: recorded === undefined ? {} : { outputs: { configMapName: recorded } },
  };
}

describe("outputsOf", () => {
  it("asks the kind for the data, with the resource as owner and readiness from the status", () => {
    const sync = outputsOf(
      {
        key: "team/demo",
        type,
        object,
        resource: resource("demo-out", "old"),
        status: { conditions: [readyTrue] },
      },
      () => ({ projectId: "p" }),
    );
    expect(sync).toEqual({
      key: "team/demo",
      owner: {
        apiVersion: "berth.dev/v1alpha1",
        kind: "Project",
        name: "demo",
        namespace: "team",
        uid: "uid-1",
      },
      configMapName: "demo-out",
      recorded: "old",
      data: { projectId: "p" },
      ready: true,
      deleting: false,
      request: "r1",
    });
  });

  it("without spec.outputs: the kind is not asked", () => {
    const sync = outputsOf({ key: "team/demo", type, object, resource: resource(), status: {} }, () => {
      throw new Error("asked");
    });
    expect(sync).toMatchObject({ configMapName: undefined, data: {}, ready: false });
  });
});

describe("withOutputs", () => {
  const status = { conditions: [readyTrue], outputs: { configMapName: "old" } };
  const result = (r: Partial<OutputSyncResult>): OutputSyncResult => ({
    recorded: undefined,
    problem: undefined,
    error: undefined,
    ...r,
  });

  it.each([
    ["written: recorded", result({ recorded: "new" }), false, { configMapName: "new" }, "True"],
    ["no outputs: nothing recorded", result({}), false, undefined, "True"],
    [
      "conflict: Stalled OutputConflict, nothing recorded",
      result({ problem: conflict }),
      false,
      undefined,
      "False",
    ],
    [
      "conflict while the kind has its own problem: the kind's conditions",
      result({ problem: conflict }),
      true,
      undefined,
      "True",
    ],
  ])("%s", (_, synced, kindProblem, outputs, ready) => {
    const next = withOutputs(status, synced, kindProblem, 1, now);
    expect(next.outputs).toEqual(outputs);
    expect(next.conditions.find((c) => c.type === "Ready")?.status).toBe(ready);
    const stalled = next.conditions.find((c) => c.type === "Stalled");
    expect(stalled?.reason).toBe(ready === "False" ? "OutputConflict" : undefined);
  });
});
