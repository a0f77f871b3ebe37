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

  it("reads again after a failure and after invalidate", async () => {
    const cache = new IdentityCache();
    const client = fakeClient([new Error("down"), me(["*"]), me(["apps:read"])]);
    await expect(cache.get(client)).rejects.toThrow("down");
    await cache.get(client);
    cache.invalidate(client.credentialId);
    expect((await cache.get(client)).apiKey?.scopes).toEqual(["apps:read"]);
    expect(client.calls).toBe(3);
  });
});
