/**
 * The service's money is kept exact: integer micro-units (1e-6 USD) everywhere, shown as a decimal
 * string with at least 4 decimals and more only when the amount has them, never rounded. So every
 * figure a client reads adds up with the others.
 */
export const MICROS = 1_000_000;
const HOUR_MS = 3_600_000n;

export class MoneyError extends Error {
  readonly code = "money_not_exact";
}

export function formatMoney(micros: number): string {
  if (!Number.isSafeInteger(micros)) throw new MoneyError(`money must be whole micro-units, got ${micros}`);
  const sign = micros < 0 ? "-" : "";
  const abs = Math.abs(micros);
  const fraction = String(abs % MICROS)
    .padStart(6, "0")
    .replace(/0+$/, "")
    .padEnd(4, "0");
  return `${sign}${Math.floor(abs / MICROS)}.${fraction}`;
}

/** Parses a number or a decimal string ("12.5") into micro-units, exactly; undefined when not a decimal. */
export function parseMoney(value: number | string): number | undefined {
  const text = typeof value === "number" ? String(value) : value.trim();
  const match = /^(-?)(\d+)(?:\.(\d{1,6}))?$/.exec(text);
  if (match === null) return undefined;
  const [, sign = "", whole = "0", fraction = ""] = match;
  const micros = Number(whole) * MICROS + Number(fraction.padEnd(6, "0"));
  if (!Number.isSafeInteger(micros)) return undefined;
  return sign === "-" ? -micros : micros;
}

/**
 * What running at `ratePerHour` micro-units for `ms` milliseconds costs, in exact units of
 * micro-unit-milliseconds per hour (a bigint: no rounding while it accrues).
 */
export function accrualUnits(ratePerHour: number, ms: number): bigint {
  return BigInt(ratePerHour) * BigInt(ms);
}

/** The whole micro-units charged for an exact accrual: the fraction waits for more to accrue. */
export function chargedMicros(units: bigint): number {
  return Number(units / HOUR_MS);
}
