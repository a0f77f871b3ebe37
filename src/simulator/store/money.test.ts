import { describe, expect, it } from "vitest";
import { accrualUnits, chargedMicros, formatMoney, MoneyError, parseMoney } from "./money.ts";

describe("money", () => {
  it.each([
    [0, "0.0000"],
    [100_000_000, "100.0000"],
    [52_000, "0.0520"],
    [391, "0.000391"],
    [1_234_560, "1.23456"],
    [-5_500_000, "-5.5000"],
    [-1, "-0.000001"],
  ])("shows %i micro-units as %s, never rounded", (micros, text) => {
    expect(formatMoney(micros)).toBe(text);
    expect(parseMoney(text)).toBe(micros);
  });

  it("refuses to show a fraction of a micro-unit", () => {
    expect(() => formatMoney(0.5)).toThrow(MoneyError);
  });

  it("parses decimals exactly, and nothing else", () => {
    expect(parseMoney("0.1")).toBe(100_000);
    expect(parseMoney(0.3)).toBe(300_000);
    expect(parseMoney("12.345678")).toBe(12_345_678);
    expect(parseMoney("1.0000001")).toBeUndefined();
    expect(parseMoney("1e3")).toBeUndefined();
    expect(parseMoney("")).toBeUndefined();
  });

  it("accrues exactly and charges whole micro-units, the fraction carried", () => {
    // 0.012 USD/h for 17 s is 56.67 micro-units: 56 charged, the rest waits.
    const first = accrualUnits(12_000, 17_000);
    expect(chargedMicros(first)).toBe(56);
    // Another 13 s makes 30 s in all: exactly 100.
    expect(chargedMicros(first + accrualUnits(12_000, 13_000))).toBe(100);
  });
});
