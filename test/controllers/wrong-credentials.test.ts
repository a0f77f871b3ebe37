import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { condition, hasCondition, sleep, useOperatorEnvironment } from "./support.ts";

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

    // The first 20 s may retry quickly; over the next 40 s the pair makes at most a few calls a minute.
    await sleep(20_000);
    const before = await attempts(registry);
    await sleep(40_000);
    const during = (await attempts(registry)) - before;
    // The key's failed GET /me (up to 4 attempts: the client's own retries) is given back to both
    // kinds for 5 s, doubling: by now one round every 20–40 s, so at most two rounds in 40 s.
    expect(during).toBeLessThanOrEqual(2 * 4);

    // The fix of the Secret the resources use is acted on at once, whatever backoff they were in.
    await env.putSecret("berth-credentials", { apiKey: account.token, baseUrl: env.baseUrl });
    const fixedAt = Date.now();
    await env.waitFor("projects", "demo", hasCondition("Ready"), 10_000);
    expect(Date.now() - fixedAt).toBeLessThan(10_000);
  }, 120_000);

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
