import { describe, expect, it } from "vitest";
import { type PageCutting, paginate } from "./pagination.ts";

const items = Array.from({ length: 5 }, (_, seq) => ({ seq }));
const full: PageCutting = { fullPages: true, random: () => 0 };

/** Walks every page until nextCursor is null; returns the pages' seqs. */
function walk(cutting: PageCutting, limit: number): number[][] {
  const pages: number[][] = [];
  let cursor: string | undefined;
  do {
    const page = paginate(items, { limit, filters: { name: "x" }, cutting, ...(cursor ? { cursor } : {}) });
    pages.push(page.items.map((i) => i.seq));
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined && pages.length < 100);
  return pages;
}

describe("paginate", () => {
  it("fullPages: walks the items in seq order, nextCursor null on the last page", () => {
    expect(walk(full, 2)).toEqual([[0, 1], [2, 3], [4]]);
  });

  it("harsh: short and empty pages carry a cursor, and every item still comes exactly once", () => {
    let state = 42;
    const lcg = () => {
      state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
      return state / 2 ** 31;
    };
    const walks = Array.from({ length: 50 }, () => walk({ fullPages: false, random: lcg }, 2));
    for (const pages of walks) expect(pages.flat()).toEqual([0, 1, 2, 3, 4]);
    const inner = walks.flatMap((pages) => pages.slice(0, -1));
    expect(inner.some((page) => page.length === 1)).toBe(true);
    expect(inner.some((page) => page.length === 0)).toBe(true);
    expect(walks.some((pages) => pages.at(-1)?.length === 0)).toBe(true);
  });

  it("harsh: an empty first page carries a cursor that works", () => {
    let n = 0;
    const harsh: PageCutting = { fullPages: false, random: () => (n++ < 2 ? 0 : 0.9) };
    const empty = paginate(items, { limit: 2, filters: {}, cutting: harsh });
    expect(empty.items).toEqual([]);
    const next = paginate(items, { limit: 2, filters: {}, cutting: harsh, cursor: empty.nextCursor ?? "" });
    expect(next.items.map((i) => i.seq)).toEqual([0, 1]);
  });

  it("refuses a cursor from other filters, and garbage", () => {
    const cursor = paginate(items, { limit: 1, filters: { name: "x" }, cutting: full }).nextCursor ?? "";
    expect(() => paginate(items, { cursor, filters: { name: "y" }, cutting: full })).toThrow(
      /different filters/,
    );
    expect(() => paginate(items, { cursor: "garbage", filters: {}, cutting: full })).toThrow(
      expect.objectContaining({ code: "validation_failed" }),
    );
  });
});
