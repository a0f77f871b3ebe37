import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { condition, hasCondition, sleep, until, useOperatorEnvironment } from "./support.ts";

// Issue 25: a credentials Secret whose baseUrl points where nothing listens, with a Project and an
// App on it, made 120 GET /me calls in 30 s (each kind's status write woke the other, and every
// failure was retried at once). Now the conditions name the URL, the cause and the Secret, and the
// pair backs off to a few calls a minute.

/** A port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Calls the operator attempted, from its own metric (an unreachable service logs nothing). */
async function attempts(registry: Registry): Promise<number> {
  const metric = await registry.getSingleMetric("berth_hosting_requests_total")?.get();
  return (metric?.values ?? []).reduce((sum, v) => sum + v.value, 0);
}

/**
 * Watches the operator's attempts: a round is attempts less than 2 s apart (the client's own quick
 * retries of one call). When each round began and how many attempts it made, as seen by the test.
 */
function watchRounds(registry: Registry) {
  const rounds: { at: number; attempts: number }[] = [];
  let seen = 0;
  let lastAt = 0;
  let stopped = false;
  const done = (async () => {
    while (!stopped) {
      const count = await attempts(registry);
      const now = Date.now();
      if (count > seen) {
        const last = rounds.at(-1);
        if (last !== undefined && now - lastAt < 2000) last.attempts += count - seen;
        else rounds.push({ at: now, attempts: count - seen });
        seen = count;
        lastAt = now;
      }
      await sleep(100);
    }
  })();
  return {
    rounds,
    /** The gaps between the starts of consecutive rounds, in ms. */
    gaps: () => rounds.slice(1).map((r, i) => r.at - (rounds[i]?.at ?? 0)),
    stop: async () => {
      stopped = true;
      await done;
    },
  };
}

describe("a credentials Secret with a wrong base URL or key", () => {
  const env = useOperatorEnvironment();

  it("names the URL, the cause and the Secret, backs off to a few calls a minute, and acts on the fixed Secret at once", async () => {
    const account = await env.setUp();
    const port = await closedPort();
    const wrongUrl = `http://127.0.0.1:${port}/v1`;
    await env.putSecret("berth-credentials", { apiKey: account.token, baseUrl: wrongUrl });
    const registry = new Registry();
    await env.startOperator({ registry });
    await env.create("projects", "demo", {});
    await env.create("apps", "web", { projectRef: { name: "demo" }, image: "nginx:1.27" });

    const project = await env.waitFor(
      "projects",
      "demo",
      hasCondition("Reconciling", "True", "HostingError"),
    );
    expect(condition(project, "Reconciling")?.message).toBe(
      `could not connect to ${wrongUrl}/me: connection refused (nothing listens on that port) (connect_failed); ` +
        `check "baseUrl" of Secret ${env.namespace}/berth-credentials; retrying`,
    );
    await env.waitFor(
      "apps",
      "web",
      (app) => condition(app, "Reconciling")?.message.includes(wrongUrl) === true,
    );

    // The key's failed GET /me (up to 4 attempts: the client's own retries) is given back to both
    // kinds for 5 s, doubling. Waited on: two rounds each at least 15 s after the one before (a few
    // calls a minute), every round after the first few at most one call's attempts. Lower bounds
    // only: a slow machine lengthens the gaps, and a hot retry makes them milliseconds.
    const watch = watchRounds(registry);
    const slowGaps = () => watch.gaps().filter((gap) => gap >= 15_000).length;
    try {
      await until(() => slowGaps() >= 1, "a round 15 s after the one before", 90_000);
      const firstSlow = watch.gaps().findIndex((gap) => gap >= 15_000);
      await until(() => watch.rounds.length >= firstSlow + 3, "the round after it", 90_000);
      expect(
        watch
          .gaps()
          .slice(firstSlow, firstSlow + 2)
          .every((gap) => gap >= 15_000),
      ).toBe(true);
      expect(watch.rounds.slice(firstSlow + 1).every((round) => round.attempts <= 4)).toBe(true);
    } finally {
      await watch.stop();
    }

    // The fix of the Secret the resources use is acted on at once, whatever backoff they were in:
    // Ready before the next round the backoff would allow (15 s after the last at the least).
    await env.putSecret("berth-credentials", { apiKey: account.token, baseUrl: env.baseUrl });
    await env.waitFor("projects", "demo", hasCondition("Ready"), 30_000);
    expect(Date.now()).toBeLessThan((watch.rounds.at(-1)?.at ?? 0) + 15_000);
  }, 240_000);

  it("tells a base URL without /v1 (GET /me answers 404) apart from an object that is gone", async () => {
    const account = await env.setUp();
    const withoutVersion = env.baseUrl.replace(/\/v1\/?$/, "");
    await env.putSecret("berth-credentials", { apiKey: account.token, baseUrl: withoutVersion });
    await env.startOperator();
    await env.create("projects", "demo", {});
    const project = await env.waitFor("projects", "demo", hasCondition("Stalled", "True", "WrongBaseUrl"));
    expect(condition(project, "Stalled")?.message).toBe(
      `GET ${withoutVersion}/me answered 404, so ${withoutVersion} is not the API's base URL: ` +
        `set "baseUrl" of Secret ${env.namespace}/berth-credentials to the URL ending in /v1 (e.g. https://host/v1)`,
    );
  });

  it("names the Secret whose key the service rejects", async () => {
    await env.setUp();
    await env.putSecret("team-key", { apiKey: "sk_not_a_real_key", baseUrl: env.baseUrl });
    await env.startOperator();
    await env.create("projects", "demo", { credentialsRef: { name: "team-key" } });
    const project = await env.waitFor(
      "projects",
      "demo",
      hasCondition("Stalled", "True", "CredentialsRejected"),
    );
    expect(condition(project, "Stalled")?.message).toBe(
      `the service rejected the API key in Secret ${env.namespace}/team-key (expired, revoked or mistyped): put a valid key in its "apiKey"`,
    );
    expect(condition(project, "Stalled")?.message).not.toContain("sk_not_a_real_key");
  });
});
