/** Plain HTTP calls to the simulator as the test's user: an independent look at the service's state. */
export function serviceHttp(baseUrl: string, token: string) {
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  async function send<T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: (text === "" ? undefined : JSON.parse(text)) as T };
  }
  return {
    get: <T>(path: string) => send<T>("GET", path),
    post: <T>(path: string, body: unknown) => send<T>("POST", path, body),
    /** Every item of a list (the tests' lists fit in one page). */
    async items<T>(path: string): Promise<T[]> {
      const { status, body } = await send<{ items: T[] }>("GET", path);
      if (status !== 200) throw new Error(`GET ${path} answered ${status}`);
      return body.items;
    },
  };
}
