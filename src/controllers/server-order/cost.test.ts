import { describe, expect, it } from "vitest";
import type { Server } from "../../hosting/index.ts";
import { withOrderCost } from "./cost.ts";
import type { OrderPlan } from "./plan-common.ts";

const plan: OrderPlan = {
  actions: [],
  status: { orderId: "ord_1", cost: { hourly: { amount: "9.0000", currency: "USD" } } },
  stalled: false,
  poll: undefined,
};
const server = (address: string, extra: Record<string, unknown>): Server =>
  ({ address, gridIds: [], state: "running", hourlyCost: "0.0520", ...extra }) as Server;

describe("withOrderCost", () => {
  it("adds up what the service says each server is charged now, a hibernated one at its disk cost", () => {
    const servers = [
      server("0xa", { currentHourlyCost: "0.0520", currency: "USD" }),
      server("0xb", { state: "hibernated", currentHourlyCost: "0.0052", currency: "USD" }),
    ];
    expect(withOrderCost(plan, { servers, gone: false }).status.cost).toEqual({
      hourly: { amount: "0.0572", currency: "USD" },
    });
  });

  it("never guesses: a server without a stated cost (its list price is not what it is charged) shows nothing", () => {
    const servers = [server("0xa", { currentHourlyCost: "0.0520", currency: "USD" }), server("0xb", {})];
    expect(withOrderCost(plan, { servers, gone: false }).status).not.toHaveProperty("cost");
    expect(withOrderCost(plan, { servers: [], gone: false }).status).not.toHaveProperty("cost");
    expect(withOrderCost(plan, { servers: undefined, gone: true }).status).not.toHaveProperty("cost");
  });

  it("keeps what it had until the servers are listed", () => {
    expect(withOrderCost(plan, { servers: undefined, gone: false }).status.cost).toEqual(plan.status.cost);
  });
});
