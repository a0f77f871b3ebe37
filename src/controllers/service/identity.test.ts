import { describe, expect, it } from "vitest";
import type { HostingClient, Me } from "../../hosting/index.ts";
import { IdentityCache } from "./identity.ts";

function fakeClient(answers: Array<Me | Error>): HostingClient & { calls: number } {
  const client = {
    credentialId: "key-1",
    calls: 0,
    async getMe() {
      const answer = answers[client.calls++];
      if (answer === undefined || answer instanceof Error) throw answer ?? new Error("no answer");
      return answer;
    },
  };
  return client as unknown as HostingClient & { calls: number };
}

const me = (scopes: string[]): Me => ({
  user: { id: "u", email: "u@example.test" },
  apiKey: { id: "k", scopes, projectIds: [], expiresAt: null },
  oauthClient: null,
});

describe("IdentityCache", () => {
  it("shares one /me request between concurrent callers and caches it until the TTL", async () => {
    let now = 0;
    const cache = new IdentityCache({ ttlMs: 1000, now: () => now });
    const client = fakeClient([me(["*"]), me(["apps:read"])]);
    const [a, b] = await Promise.all([cache.get(client), cache.get(client)]);
    expect(a).toEqual(b);
    expect(client.calls).toBe(1);
    now = 999;
    await cache.get(client);
    expect(client.calls).toBe(1);
    now = 1000;
    expect((await cache.get(client)).apiKey?.scopes).toEqual(["apps:read"]);
    expect(client.calls).toBe(2);
  });

  it("gives a failure back for a while, doubling while it keeps failing, then reads again", async () => {
    let now = 0;
    const cache = new IdentityCache({ failureBackoffMs: { first: 5_000, max: 20_000 }, now: () => now });
    const client = fakeClient([
      new Error("down"),
      new Error("down"),
      new Error("down"),
      new Error("down"),
      me(["*"]),
    ]);
    const callsAt = async (time: number) => {
      now = time;
      await cache.get(client, "http://api.test/v1").catch(() => undefined);
      return client.calls;
    };
    // Failures at 0, 5 s, 15 s and 35 s (waits of 5, 10, 20, then the 20 s cap); every other caller gets the last one.
    expect([await callsAt(0), await callsAt(4_999), await callsAt(5_000), await callsAt(14_999)]).toEqual([
      1, 1, 2, 2,
    ]);
    expect([
      await callsAt(15_000),
      await callsAt(34_999),
      await callsAt(35_000),
      await callsAt(54_999),
    ]).toEqual([3, 3, 4, 4]);
    expect(await callsAt(55_000)).toBe(5);
    await expect(cache.get(client, "http://api.test/v1")).resolves.toMatchObject({ user: { id: "u" } });
    expect(client.calls).toBe(5);
  });

  it("reads at once for another base URL (a fixed Secret) and after invalidate", async () => {
    const cache = new IdentityCache();
    const client = fakeClient([new Error("down"), me(["*"]), me(["apps:read"])]);
    await expect(cache.get(client, "http://wrong:1/v1")).rejects.toThrow("down");
    await expect(cache.get(client, "http://wrong:1/v1")).rejects.toThrow("down");
    expect(client.calls).toBe(1);
    await cache.get(client, "http://right/v1");
    cache.invalidate(client.credentialId);
    expect((await cache.get(client, "http://right/v1")).apiKey?.scopes).toEqual(["apps:read"]);
    expect(client.calls).toBe(3);
  });
});
