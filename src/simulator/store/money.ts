/** Money is kept as integer micro-units (1e-6 USD) and shown as a 4-decimal string. */
export const MICROS = 1_000_000;

export function formatMoney(micros: number): string {
  const tenThousandths = Math.round(micros / 100);
  const sign = tenThousandths < 0 ? "-" : "";
  const abs = Math.abs(tenThousandths);
  return `${sign}${Math.floor(abs / 10_000)}.${String(abs % 10_000).padStart(4, "0")}`;
}

/** Parses a number or a decimal string ("12.5") into micro-units; undefined when not a decimal. */
export function parseMoney(value: number | string): number | undefined {
  const text = typeof value === "number" ? String(value) : value.trim();
  if (!/^-?\d+(\.\d{1,6})?$/.test(text)) return undefined;
  return Math.round(Number(text) * MICROS);
}
