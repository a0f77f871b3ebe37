import { describe, expect, it } from "vitest";
import type { Page } from "./models.ts";
import { paginate } from "./paginate.ts";

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of iterable) items.push(item);
  return items;
}

describe("paginate", () => {
  it("follows nextCursor until null, fetching lazily", async () => {
    const pages: Record<string, Page<number>> = {
      first: { items: [1, 2], nextCursor: "c2" },
      c2: { items: [3], nextCursor: "c3" },
      c3: { items: [], nextCursor: null },
    };
    const asked: (string | undefined)[] = [];
    const items = paginate(async (cursor) => {
      asked.push(cursor);
      return pages[cursor ?? "first"] ?? { items: [], nextCursor: null };
    });
    const iterator = items[Symbol.asyncIterator]();
    await iterator.next();
    expect(asked).toEqual([undefined]);
    expect([1, ...(await collect({ [Symbol.asyncIterator]: () => iterator }))]).toEqual([1, 2, 3]);
    expect(asked).toEqual([undefined, "c2", "c3"]);
  });

  it("stops with a typed error when the service hands back a cursor twice", async () => {
    const looping = paginate(async () => ({ items: [1], nextCursor: "same" }));
    await expect(collect(looping)).rejects.toMatchObject({ code: "pagination_loop" });
  });
});
