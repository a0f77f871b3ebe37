import { describe, expect, it } from "vitest";
import { paginate } from "./pagination.ts";

const items = Array.from({ length: 5 }, (_, seq) => ({ seq }));

describe("paginate", () => {
  it("walks the items in seq order until nextCursor is null", () => {
    const first = paginate(items, { limit: 2, filters: { name: "x" } });
    expect(first.items.map((i) => i.seq)).toEqual([0, 1]);
    const second = paginate(items, { limit: 2, cursor: first.nextCursor ?? "", filters: { name: "x" } });
    const third = paginate(items, { limit: 2, cursor: second.nextCursor ?? "", filters: { name: "x" } });
    expect([second.items, third.items].map((page) => page.map((i) => i.seq))).toEqual([[2, 3], [4]]);
    expect(third.nextCursor).toBeNull();
  });

  it("refuses a cursor from other filters, and garbage", () => {
    const cursor = paginate(items, { limit: 1, filters: { name: "x" } }).nextCursor ?? "";
    expect(() => paginate(items, { cursor, filters: { name: "y" } })).toThrow(/different filters/);
    expect(() => paginate(items, { cursor: "garbage", filters: {} })).toThrow(
      expect.objectContaining({ code: "validation_failed" }),
    );
  });
});
