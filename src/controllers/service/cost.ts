import { z } from "zod";
import { type CostStatus, decimalAmount, type Money } from "../../api/cost.ts";

/** The service's statement of what an app or server is charged now (fields beside its others). */
const statedCost = z.object({
  currentHourlyCost: z.string().regex(decimalAmount),
  currency: z.string().min(1),
});

/** A service amount ("0.0520") as a scaled integer, exactly; undefined when it is not a decimal. */
function scaled(amount: string): { units: bigint; digits: number } | undefined {
  if (!decimalAmount.test(amount)) return undefined;
  const [whole = "0", fraction = ""] = amount.replace("-", "").split(".");
  const units = BigInt(whole + fraction);
  return { units: amount.startsWith("-") ? -units : units, digits: fraction.length };
}

function formatScaled(units: bigint, digits: number): string {
  const sign = units < 0n ? "-" : "";
  const text = (units < 0n ? -units : units).toString().padStart(digits + 1, "0");
  return digits === 0 ? `${sign}${text}` : `${sign}${text.slice(0, -digits)}.${text.slice(-digits)}`;
}

/**
 * The exact sum of amounts the service stated, in their one currency, shown with as many decimals
 * as the most precise of them. Undefined when there is nothing to add, an amount is not a decimal, or
 * the currencies differ: berth does not convert or guess.
 */
export function sumMoney(amounts: readonly Money[]): Money | undefined {
  const currency = amounts[0]?.currency;
  if (currency === undefined || amounts.some((m) => m.currency !== currency)) return undefined;
  const parsed = amounts.map((m) => scaled(m.amount));
  if (parsed.some((p) => p === undefined)) return undefined;
  const digits = Math.max(...parsed.map((p) => p?.digits ?? 0));
  const total = parsed.reduce(
    (sum, p) => sum + (p?.units ?? 0n) * 10n ** BigInt(digits - (p?.digits ?? 0)),
    0n,
  );
  return { amount: formatScaled(total, digits), currency };
}

/** A service's cost statement (`currentHourlyCost` and `currency` beside it), when it makes one. */
export function statedHourly(record: object): Money | undefined {
  const parsed = statedCost.safeParse(record);
  return parsed.success
    ? { amount: parsed.data.currentHourlyCost, currency: parsed.data.currency }
    : undefined;
}

/** The status's `cost` for an hourly amount: the field is left out when the service did not say. */
export function costField(hourly: Money | undefined): { cost?: CostStatus } {
  return hourly === undefined ? {} : { cost: { hourly } };
}
