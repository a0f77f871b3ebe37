import { describe, expect, it } from "vitest";
import type { KubeObject } from "../../runtime/index.ts";
import { projectHourly } from "./cost.ts";

const app = (namespace: string, status: Record<string, unknown>): KubeObject => ({
  apiVersion: "berth.dev/v1alpha1",
  kind: "App",
  metadata: { name: "a", namespace },
  status,
});
const costing = (amount: string) => ({ hourly: { amount, currency: "USD" } });
const P = "0123456789abcdef01234567";

describe("projectHourly", () => {
  it("sums the Apps of the project in every namespace, and no other project's", () => {
    const apps = [
      app("team-a", { projectId: P, appId: "a1", cost: costing("0.0120") }),
      app("team-b", { projectId: P, appId: "a2", cost: costing("0.0415620") }),
      app("team-a", { projectId: "ffffffffffffffffffffffff", appId: "a3", cost: costing("5.0000") }),
      // Not created at the service yet: it costs nothing and says nothing.
      app("team-a", { projectId: P }),
    ];
    expect(projectHourly(P, apps)).toEqual({ amount: "0.0535620", currency: "USD" });
  });

  it("shows nothing when one of its Apps has no stated cost, or it has none, or no project ID yet", () => {
    const apps = [
      app("x", { projectId: P, appId: "a1", cost: costing("0.0120") }),
      app("y", { projectId: P, appId: "a2" }),
    ];
    expect(projectHourly(P, apps)).toBeUndefined();
    expect(projectHourly(P, [])).toBeUndefined();
    expect(projectHourly(undefined, apps.slice(0, 1))).toBeUndefined();
  });
});
