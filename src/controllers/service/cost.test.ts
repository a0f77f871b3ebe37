import { describe, expect, it } from "vitest";
import { statedHourly, sumMoney } from "./cost.ts";

describe("sumMoney", () => {
  it("adds the service's amounts exactly, at the precision of the most precise", () => {
    expect(
      sumMoney([
        { amount: "0.0001", currency: "USD" },
        { amount: "0.0003", currency: "USD" },
        { amount: "0.0001", currency: "USD" },
      ]),
    ).toEqual({ amount: "0.0005", currency: "USD" });
    expect(
      sumMoney([
        { amount: "0.1", currency: "USD" },
        { amount: "0.2", currency: "USD" },
        { amount: "0.000391", currency: "USD" },
        { amount: "12", currency: "USD" },
      ]),
    ).toEqual({ amount: "12.300391", currency: "USD" });
    expect(sumMoney([{ amount: "-0.5", currency: "EUR" }])).toEqual({ amount: "-0.5", currency: "EUR" });
  });

  it("says nothing rather than mix currencies or add up nothing", () => {
    expect(sumMoney([])).toBeUndefined();
    expect(
      sumMoney([
        { amount: "1.0000", currency: "USD" },
        { amount: "1.0000", currency: "EUR" },
      ]),
    ).toBeUndefined();
    expect(sumMoney([{ amount: "1,50", currency: "USD" }])).toBeUndefined();
  });
});

describe("statedHourly", () => {
  it("takes the service's current hourly cost only when it states amount and currency", () => {
    expect(statedHourly({ currentHourlyCost: "0.0520", currency: "USD" })).toEqual({
      amount: "0.0520",
      currency: "USD",
    });
    expect(statedHourly({ currentHourlyCost: "0.0520" })).toBeUndefined();
    expect(statedHourly({ currency: "USD" })).toBeUndefined();
    expect(statedHourly({ currentHourlyCost: 0.052, currency: "USD" })).toBeUndefined();
  });
});
