import { createHash } from "node:crypto";

/** An array index as an object key: V8 keeps such keys first, in numeric order, whatever the insertion order. */
const indexKey = /^(?:0|[1-9]\d{0,9})$/;
const isIndex = (key: string) => indexKey.test(key) && Number(key) < 2 ** 32 - 1;

/** The keys in the order JSON.stringify gives a copy of the object made with its keys sorted. */
function sortedKeys(record: object): string[] {
  const keys = Object.keys(record).sort();
  if (!keys.some(isIndex)) return keys;
  const indexes = keys.filter(isIndex).sort((a, b) => Number(a) - Number(b));
  return [...indexes, ...keys.filter((key) => !isIndex(key))];
}

/**
 * JSON with object keys sorted at every depth: equal values give equal text. The same text as
 * `JSON.stringify` with a replacer that sorts each object's keys, without a sorted copy of every
 * object (this runs twice a reconcile).
 */
export function stableJson(value: unknown, key = ""): string | undefined {
  const json = (value as { toJSON?: (key: string) => unknown } | null | undefined)?.toJSON;
  const item = typeof json === "function" ? json.call(value, key) : value;
  if (item === null || typeof item !== "object") return JSON.stringify(item);
  if (Array.isArray(item)) {
    return `[${item.map((element, index) => stableJson(element, String(index)) ?? "null").join(",")}]`;
  }
  const record = item as Record<string, unknown>;
  const members: string[] = [];
  for (const field of sortedKeys(record)) {
    const text = stableJson(record[field], field);
    if (text !== undefined) members.push(`${JSON.stringify(field)}:${text}`);
  }
  return `{${members.join(",")}}`;
}

/** A short hex digest of a value's stable JSON. */
export function shortHash(value: unknown): string {
  // Hex of the first 8 bytes, not a slice of the whole hex: a slice would keep its 64-character
  // parent alive for as long as the digest is kept (per resource, in the budget's memory).
  return createHash("sha256")
    .update(stableJson(value) ?? "undefined")
    .digest()
    .toString("hex", 0, 8);
}
