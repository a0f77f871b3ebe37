import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { shortHash, stableJson } from "./hash.ts";

/** The text digests were made from (and must stay equal to: hashes are kept in status and outputs). */
function sortingReplacer(value: unknown): string | undefined {
  return JSON.stringify(value, (_key, item: unknown) =>
    item !== null && typeof item === "object" && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : item,
  );
}

const values: unknown[] = [
  { b: 1, a: { d: [3, { z: true, y: null }], c: "x" } },
  { "10": "ten", "9": "nine", b: 2, a: 1, "01": "not an index", "4294967295": "not one either" },
  [undefined, () => 1, Symbol("s"), { keep: 1, drop: undefined, fn: () => 2 }],
  { when: new Date(Date.UTC(2026, 0, 2, 3, 4, 5)), nested: { toJSON: () => ({ b: 1, a: 2 }) } },
  { numbers: [0, -0, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 1e21], text: 'quote " \\ \u2028 é 🚀' },
  { é: 1, e: 2, E: 3, "": 4, " ": 5 },
  [],
  {},
  "plain",
  42,
  null,
  true,
];

describe("stableJson", () => {
  it.each(values.map((value, i) => [i, value]))(
    "gives the text of a key-sorting replacer (%i)",
    (_, value) => {
      expect(stableJson(value)).toBe(sortingReplacer(value));
    },
  );

  it("gives equal text for equal values, whatever their key order", () => {
    expect(stableJson({ a: 1, b: { c: 2, d: 3 } })).toBe(stableJson({ b: { d: 3, c: 2 }, a: 1 }));
    expect(shortHash({ a: 1, b: 2 })).toBe(shortHash({ b: 2, a: 1 }));
  });

  it("digests to the first 16 hex characters of the SHA-256 of that text", () => {
    const full = createHash("sha256").update('{"a":2,"b":1}').digest("hex");
    expect(shortHash({ b: 1, a: 2 })).toBe(full.slice(0, 16));
  });
});
