import { describe, expect, it } from "vitest";
import type { KubeObject } from "../../runtime/index.ts";
import { runwayCrossing, runwayHours, spendOf } from "./runway.ts";

const costing = (amount: string | undefined, currency = "USD"): KubeObject => ({
  metadata: { name: "x", namespace: "n" },
  status: amount === undefined ? {} : { cost: { hourly: { amount, currency } } },
});
const usd = (amount: string) => ({ amount, currency: "USD" });

describe("spend and runway", () => {
  it("spend is the sum of the costs the resources state; one stating none adds nothing", () => {
    expect(spendOf([costing("0.0120"), costing("0.1040"), costing(undefined)])).toEqual(usd("0.1160"));
    expect(spendOf([costing(undefined)])).toBeUndefined();
    expect(spendOf([costing("1.0000"), costing("1.0000", "EUR")])).toBeUndefined();
  });

  it("runway is balance over spend, 0 once the balance is gone, unknown without spend or in another currency", () => {
    expect(runwayHours(usd("12.0000"), usd("0.5000"))).toBe(24);
    expect(runwayHours(usd("-3.0000"), usd("0.5000"))).toBe(0);
    expect(runwayHours(usd("12.0000"), usd("0.0000"))).toBeUndefined();
    expect(runwayHours(usd("12.0000"), undefined)).toBeUndefined();
    expect(runwayHours(undefined, usd("1.0000"))).toBeUndefined();
    expect(runwayHours(usd("12.0000"), { amount: "1.0000", currency: "EUR" })).toBeUndefined();
  });

  it("warns once per crossing under 24 h: not again while low, again after it recovered", () => {
    expect(runwayCrossing(false, 30)).toEqual({ low: false, crossed: false });
    expect(runwayCrossing(false, 23.9)).toEqual({ low: true, crossed: true });
    expect(runwayCrossing(true, 10)).toEqual({ low: true, crossed: false });
    expect(runwayCrossing(true, 48)).toEqual({ low: false, crossed: false });
    expect(runwayCrossing(false, 0)).toEqual({ low: true, crossed: true });
    expect(runwayCrossing(true, undefined)).toEqual({ low: false, crossed: false });
  });
});
