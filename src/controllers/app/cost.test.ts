import { describe, expect, it } from "vitest";
import type { AppStatus } from "../../hosting/index.ts";
import { withAppCost } from "./cost.ts";
import { type ExternalApp, emptyStatus, unknownExternal } from "./memory.ts";
import type { AppPlan } from "./plan-common.ts";

const plan = (status: AppPlan["status"]): AppPlan => ({
  actions: [],
  status,
  stalled: false,
  statusPollMs: undefined,
  buildPollMs: undefined,
});
const earlier = { cost: { hourly: { amount: "0.0100", currency: "USD" } }, state: "running" };
const read = (extra: Record<string, unknown>): ExternalApp => ({
  ...unknownExternal(),
  status: { ...emptyStatus(), state: "running", ...extra } as AppStatus,
});

describe("withAppCost", () => {
  it("shows what the service's status read says the app is charged per hour now", () => {
    const external = read({ currentHourlyCost: "0.0240", currency: "USD" });
    expect(withAppCost(plan(earlier), external).status.cost).toEqual({
      hourly: { amount: "0.0240", currency: "USD" },
    });
  });

  it("shows nothing when the service's status does not say, however it looked before", () => {
    expect(withAppCost(plan(earlier), read({})).status).not.toHaveProperty("cost");
    expect(
      withAppCost(plan(earlier), read({ currentHourlyCost: "cheap", currency: "USD" })).status,
    ).not.toHaveProperty("cost");
    expect(withAppCost(plan(earlier), { ...unknownExternal(), gone: true }).status).not.toHaveProperty(
      "cost",
    );
  });

  it("keeps the cost it had while the status has not been read", () => {
    expect(withAppCost(plan(earlier), unknownExternal()).status.cost).toEqual(earlier.cost);
  });
});
