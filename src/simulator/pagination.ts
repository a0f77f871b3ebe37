import { z } from "zod";
import { validationFailed } from "./errors.ts";
import { fingerprint } from "./idempotency.ts";

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 200;

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

const cursorSchema = z
  .object({ after: z.number().int().min(-1), filters: z.string(), nonce: z.number().optional() })
  .strict();

/** Whether pages may be cut (the harsh default), and the randomness that cuts them. */
export interface PageCutting {
  fullPages: boolean;
  random(): number;
}

const SHORT_PAGE_CHANCE = 0.25;
const OPEN_LAST_PAGE_CHANCE = 0.5;

/**
 * Keyset pagination over items in creation order (`seq`). The cursor is opaque and carries a
 * digest of the filters, so it can't be reused with other filters. Unless pages are full, some
 * come back short or empty with a cursor, and the last one may still carry a cursor to an empty
 * page: paging ends only at a null `nextCursor`.
 */
export function paginate<T extends { seq: number }>(
  items: readonly T[],
  options: {
    limit?: number | undefined;
    cursor?: string | undefined;
    filters: Record<string, unknown>;
    cutting: PageCutting;
  },
): Page<T> {
  const filters = fingerprint(options.filters).slice(0, 16);
  const after = options.cursor === undefined ? -1 : decodeCursor(options.cursor, filters);
  const limit = options.limit ?? DEFAULT_LIMIT;
  const { cutting } = options;
  const sorted = items.filter((item) => item.seq > after).sort((a, b) => a.seq - b.seq);
  let page = sorted.slice(0, limit);
  let more = sorted.length > limit;
  if (!cutting.fullPages && page.length > 0 && cutting.random() < SHORT_PAGE_CHANCE) {
    page = page.slice(0, Math.floor(cutting.random() * page.length));
    more = true;
  } else if (!cutting.fullPages && !more && page.length > 0 && cutting.random() < OPEN_LAST_PAGE_CHANCE) {
    more = true;
  }
  const position = page[page.length - 1]?.seq ?? after;
  // A cut page's cursor differs from the one it was asked with, even when the page is empty.
  const nonce = cutting.fullPages ? {} : { nonce: Math.floor(cutting.random() * 1e9) };
  const nextCursor = more
    ? Buffer.from(JSON.stringify({ after: position, filters, ...nonce })).toString("base64url")
    : null;
  return { items: page, nextCursor };
}

export function pageCutting(world: { profile: { fullPages: boolean }; random(): number }): PageCutting {
  return { fullPages: world.profile.fullPages, random: () => world.random() };
}

function decodeCursor(cursor: string, filters: string): number {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    decoded = undefined;
  }
  const parsed = cursorSchema.safeParse(decoded);
  if (!parsed.success) {
    throw validationFailed([
      { path: "query.cursor", message: "is not a cursor this list returned; start again without it" },
    ]);
  }
  if (parsed.data.filters !== filters) {
    throw validationFailed([
      {
        path: "query.cursor",
        message: "was issued for different filters; keep the same filters while paging",
      },
    ]);
  }
  return parsed.data.after;
}
