import { randomUUID } from "node:crypto";

/** Plain HTTP calls to the simulator as the test's user: an independent look at the service's state. */
export function serviceHttp(baseUrl: string, token: string) {
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  async function send<T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      // Every POST carries a fresh key, as a correct client's creates do (the others ignore it).
      headers: method === "POST" ? { ...headers, "idempotency-key": randomUUID() } : headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: (text === "" ? undefined : JSON.parse(text)) as T };
  }
  return {
    get: <T>(path: string) => send<T>("GET", path),
    post: <T>(path: string, body: unknown) => send<T>("POST", path, body),
    patch: <T>(path: string, body: unknown) => send<T>("PATCH", path, body),
    delete: <T>(path: string) => send<T>("DELETE", path),
    /** Every item of a list, over all pages: pages may be short or empty, and only a null cursor ends it. */
    async items<T>(path: string): Promise<T[]> {
      const items: T[] = [];
      let cursor: string | null = null;
      do {
        const suffix: string = cursor === null ? "" : `${path.includes("?") ? "&" : "?"}cursor=${cursor}`;
        const { status, body } = await send<{ items: T[]; nextCursor: string | null }>(
          "GET",
          `${path}${suffix}`,
        );
        if (status !== 200) throw new Error(`GET ${path} answered ${status}`);
        items.push(...body.items);
        cursor = body.nextCursor;
      } while (cursor !== null);
      return items;
    },
  };
}
