import { createHash } from "node:crypto";

/** JSON with object keys sorted at every depth: equal values give equal text. */
function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    item !== null && typeof item === "object" && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : item,
  );
}

/** A short hex digest of a value's stable JSON. */
export function shortHash(value: unknown): string {
  // Hex of the first 8 bytes, not a slice of the whole hex: a slice would keep its 64-character
  // parent alive for as long as the digest is kept (per resource, in the budget's memory).
  return createHash("sha256").update(stableJson(value)).digest().toString("hex", 0, 8);
}
