import { describe, expect, it } from "vitest";
import type { Order } from "../../hosting/index.ts";
import { compareDecimal, desiredInput, multiplyDecimal, reasonOfCode } from "./desired.ts";
import { ordersFromEarlierAttempt } from "./inspection.ts";

describe("compareDecimal", () => {
  it.each([
    ["0.1040", "0.104", 0],
    ["0.1041", "0.104", 1],
    ["2", "10.00", -1],
    ["12.5000", "12.49999", 1],
    ["99999999999999999999.0001", "99999999999999999999", 1],
  ])("%s vs %s is %i, exactly", (a, b, expected) => {
    expect(compareDecimal(a, b)).toBe(expected);
  });

  it("refuses what is not a plain decimal instead of guessing", () => {
    expect(compareDecimal("1e3", "2")).toBeUndefined();
    expect(compareDecimal("2", "-1")).toBeUndefined();
  });
});

describe("multiplyDecimal", () => {
  it.each([
    ["0.0520", 4, "0.2080"],
    ["0.052", 0, "0.000"],
    ["3", 7, "21"],
    ["0.0001", 3, "0.0003"],
    ["12.50", 1000, "12500.00"],
  ])("%s × %i is %s, exactly", (a, times, expected) => {
    expect(multiplyDecimal(a, times)).toBe(expected);
  });

  it("refuses what is not a plain decimal", () => {
    expect(multiplyDecimal("1e3", 2)).toBeUndefined();
  });
});

describe("reasonOfCode", () => {
  it.each([
    ["capacity_unavailable", "CapacityUnavailable"],
    ["provider_error", "ProviderError"],
    ["", "OrderFailed"],
    ["42_x", "OrderFailed"],
  ])("%s → %s", (code, reason) => {
    expect(reasonOfCode(code)).toBe(reason);
  });
});

describe("ordersFromEarlierAttempt", () => {
  const input = desiredInput(
    {
      csp: "native",
      region: "eu-central",
      zone: "eu-central-1a",
      instanceType: "native.small",
      count: 2,
      power: "On",
      autoReplace: false,
      approved: true,
      deletionPolicy: "Delete",
      suspend: false,
    },
    [],
  );
  const order = (id: string, createdAt: string, overrides: Partial<Order> = {}): Order => ({
    id,
    state: "pending",
    csp: "native",
    region: "eu-central",
    zone: "eu-central-1a",
    instanceType: "native.small",
    count: 2,
    gridIds: [],
    servers: [],
    error: null,
    pollAfterSec: 5,
    createdAt,
    ...overrides,
  });
  const since = new Date("2030-01-01T00:10:00Z");
  const orders = [
    order("old", "2030-01-01T00:00:00Z"),
    order("mine", "2030-01-01T00:10:01Z"),
    order("claimed", "2030-01-01T00:10:02Z"),
    order("other", "2030-01-01T00:10:03Z", { count: 5 }),
  ];

  it("keeps unclaimed orders made since the call that match its request", () => {
    const found = ordersFromEarlierAttempt(orders, { since, claimed: new Set(["claimed"]), input });
    expect(found.map((o) => o.id)).toEqual(["mine"]);
  });

  it("never widens the match: an order of another request is never the call's result", () => {
    const found = ordersFromEarlierAttempt(orders, { since, claimed: new Set(), input });
    expect(found.map((o) => o.id)).toEqual(["mine", "claimed"]);
  });

  it("counts an order without a creation time (not promised by the spec) as possibly the call's", () => {
    const { createdAt: _, ...undated } = order("undated", "2030-01-01T00:10:05Z");
    const found = ordersFromEarlierAttempt([...orders, undated], {
      since,
      claimed: new Set(["claimed"]),
      input,
    });
    expect(found.map((o) => o.id)).toEqual(["mine", "undated"]);
  });
});
