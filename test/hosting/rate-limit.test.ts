import { describe, expect, it } from "vitest";
import { createHostingClientCache } from "../../src/hosting/index.ts";
import { useSimulator } from "./support.ts";

// Small limits and a fast clock so windows pass in a second: 60 simulated seconds per real second.
const perCredential = 5;
const perUser = 8;
const sim = useSimulator({ clockSpeed: 60, rateLimits: { perCredential, perUser, windowSec: 60 } });
/** The simulator's window in real time. */
const windowMs = 1_000;

describe("the client's budget against the simulator's enforcement", () => {
  it("learns a lower limit from the first response and sends a burst without a single 429", async () => {
    const statuses: number[] = [];
    const account = sim.account({
      // Configured with the documented 300/min: the service's headers must correct it.
      client: { limits: { windowMs }, observer: { onRequest: (e) => statuses.push(e.status ?? 0) } },
    });

    await Promise.all(Array.from({ length: 3 * perCredential }, () => account.client.getMe()));

    expect(statuses).toHaveLength(3 * perCredential);
    expect(statuses.every((s) => s === 200)).toBe(true);
  });

  it("starts carefully when another process already used the window: no 429", async () => {
    const account = sim.account({ client: { limits: { windowMs } } });
    const otherProcess = sim.client(account.token, { limits: { windowMs } });
    const statuses: number[] = [];
    const restarted = sim.client(account.token, {
      limits: { windowMs },
      observer: { onRequest: (e) => statuses.push(e.status ?? 0) },
    });
    await Promise.all(Array.from({ length: perCredential - 1 }, () => otherProcess.getMe()));

    await Promise.all(Array.from({ length: perCredential }, () => restarted.getMe()));

    expect(statuses).toEqual(Array.from({ length: perCredential }, () => 200));
  });

  it("shares the user's budget between the clients of two keys of one user", async () => {
    const first = sim.account();
    const second = sim.account({ userId: first.userId });
    const statuses: number[] = [];
    const cache = createHostingClientCache({
      limits: { perCredential, perUser, windowMs },
      observer: { onRequest: (e) => statuses.push(e.status ?? 0) },
    });
    try {
      const clients = [cache.get(sim.baseUrl, first.token), cache.get(sim.baseUrl, second.token)];
      expect(cache.get(sim.baseUrl, first.token)).toBe(clients[0]);
      await Promise.all(clients.map((c) => c.getMe()));

      await Promise.all(clients.flatMap((c) => Array.from({ length: 2 * perCredential }, () => c.getMe())));

      expect(statuses.filter((s) => s !== 200)).toEqual([]);
      expect(statuses).toHaveLength(2 + 4 * perCredential);
    } finally {
      await cache.close();
    }
  });
});
