import { HostingError } from "./errors.ts";
import type { Page } from "./models.ts";

/**
 * Every item of a cursor-paginated list, fetching the next page only when the previous one is used
 * up, until `nextCursor` is null. `fetchPage` gets undefined for the first page.
 *
 *     for await (const app of paginate((cursor) => client.listApps(projectId, { name, cursor }))) …
 */
export async function* paginate<T>(
  fetchPage: (cursor: string | undefined) => Promise<Page<T>>,
): AsyncGenerator<T> {
  const seen = new Set<string>();
  let cursor: string | undefined;
  do {
    const page = await fetchPage(cursor);
    yield* page.items;
    cursor = page.nextCursor ?? undefined;
    if (cursor !== undefined) {
      if (seen.has(cursor)) {
        throw new HostingError({
          code: "pagination_loop",
          kind: "terminal",
          operation: "paginate",
          message:
            "the service returned a cursor it had already returned; stopping instead of looping forever",
        });
      }
      seen.add(cursor);
    }
  } while (cursor !== undefined);
}
