import { z } from "zod";
import { validationFailed } from "./errors.ts";
import { fingerprint } from "./idempotency.ts";

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 200;

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

const cursorSchema = z.object({ after: z.number().int().nonnegative(), filters: z.string() }).strict();

/**
 * Keyset pagination over items in creation order (`seq`). The cursor is opaque and carries a
 * digest of the filters, so it can't be reused with other filters.
 */
export function paginate<T extends { seq: number }>(
  items: readonly T[],
  options: { limit?: number | undefined; cursor?: string | undefined; filters: Record<string, unknown> },
): Page<T> {
  const filters = fingerprint(options.filters).slice(0, 16);
  const after = options.cursor === undefined ? -1 : decodeCursor(options.cursor, filters);
  const limit = options.limit ?? DEFAULT_LIMIT;
  const sorted = items.filter((item) => item.seq > after).sort((a, b) => a.seq - b.seq);
  const page = sorted.slice(0, limit);
  const last = page[page.length - 1];
  const nextCursor =
    sorted.length > limit && last !== undefined
      ? Buffer.from(JSON.stringify({ after: last.seq, filters })).toString("base64url")
      : null;
  return { items: page, nextCursor };
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
      { path: "cursor", message: "is not a cursor this list returned; start again without it" },
    ]);
  }
  if (parsed.data.filters !== filters) {
    throw validationFailed([
      { path: "cursor", message: "was issued for different filters; keep the same filters while paging" },
    ]);
  }
  return parsed.data.after;
}
