import { describe, expect, it } from "vitest";
import { kubeAuthorizer, type ReviewClient } from "./metrics-auth.ts";

/** Answers TokenReviews and SubjectAccessReviews from tables, recording what was asked. */
function fakeApiserver(users: Record<string, string>, allowed: string[]) {
  const calls: { path: string; body: unknown }[] = [];
  const client: ReviewClient = {
    async call(_method, path, options) {
      calls.push({ path, body: options?.body });
      const { spec } = (options?.body ?? { spec: {} }) as { spec: Record<string, unknown> };
      if (path.endsWith("/tokenreviews")) {
        const username = users[String(spec.token)];
        return username === undefined
          ? { status: { authenticated: false, error: "invalid bearer token" } }
          : { status: { authenticated: true, user: { username, groups: ["system:authenticated"] } } };
      }
      return { status: { allowed: allowed.includes(String(spec.user)) } };
    },
  };
  return { client, calls };
}

describe("kubeAuthorizer", () => {
  const { client, calls } = fakeApiserver({ good: "prometheus", other: "someone" }, ["prometheus"]);
  const authorize = kubeAuthorizer(client);

  it("allows a token whose user may get the path", async () => {
    expect(await authorize("Bearer good", "/metrics")).toBeUndefined();
    expect(calls.at(-1)?.body).toMatchObject({
      spec: {
        user: "prometheus",
        groups: ["system:authenticated"],
        nonResourceAttributes: { path: "/metrics", verb: "get" },
      },
    });
  });

  it("answers 403 for a valid token without the permission", async () => {
    expect(await authorize("Bearer other", "/metrics")).toMatchObject({ status: 403 });
  });

  it("answers 401 without a token or with one the apiserver rejects, without asking for access", async () => {
    const before = calls.length;
    expect(await authorize(undefined, "/metrics")).toMatchObject({ status: 401 });
    expect(await authorize("Basic Zm9vOmJhcg==", "/metrics")).toMatchObject({ status: 401 });
    expect(calls.length).toBe(before);
    expect(await authorize("Bearer forged", "/metrics")).toMatchObject({ status: 401 });
    expect(calls.slice(before).map((call) => call.path)).toEqual([
      "/apis/authentication.k8s.io/v1/tokenreviews",
    ]);
  });

  it("refuses a malformed review answer instead of trusting it", async () => {
    const broken = kubeAuthorizer({ call: async () => ({ status: { authenticated: "yes" } }) });
    await expect(broken("Bearer good", "/metrics")).rejects.toThrow();
  });

  describe("reuses answers for a while, as controller-runtime's delegating caches do", () => {
    const setup = () => {
      const server = fakeApiserver({ good: "prometheus", other: "someone" }, ["prometheus"]);
      const clock = { now: 0 };
      const authorize = kubeAuthorizer(server.client, {
        tokenTtlMs: 60_000,
        allowTtlMs: 300_000,
        denyTtlMs: 30_000,
        now: () => clock.now,
      });
      const asked = (kind: string) => server.calls.filter((c) => c.path.endsWith(kind)).length;
      return { authorize, clock, asked };
    };

    it("asks once per token and user within the TTLs, and again after them", async () => {
      const { authorize, clock, asked } = setup();
      for (let scrape = 0; scrape < 5; scrape++)
        expect(await authorize("Bearer good", "/metrics")).toBeUndefined();
      expect([asked("tokenreviews"), asked("subjectaccessreviews")]).toEqual([1, 1]);
      clock.now = 60_000;
      expect(await authorize("Bearer good", "/metrics")).toBeUndefined();
      expect([asked("tokenreviews"), asked("subjectaccessreviews")]).toEqual([2, 1]);
      clock.now = 300_000;
      expect(await authorize("Bearer good", "/metrics")).toBeUndefined();
      expect([asked("tokenreviews"), asked("subjectaccessreviews")]).toEqual([3, 2]);
    });

    it("keeps a denial only briefly, and a rejected token as long as an accepted one", async () => {
      const { authorize, clock, asked } = setup();
      await authorize("Bearer other", "/metrics");
      await authorize("Bearer nobody", "/metrics");
      clock.now = 29_999;
      expect(await authorize("Bearer other", "/metrics")).toMatchObject({ status: 403 });
      expect(await authorize("Bearer nobody", "/metrics")).toMatchObject({ status: 401 });
      expect([asked("tokenreviews"), asked("subjectaccessreviews")]).toEqual([2, 1]);
      clock.now = 30_000;
      expect(await authorize("Bearer other", "/metrics")).toMatchObject({ status: 403 });
      expect(asked("subjectaccessreviews")).toBe(2);
    });

    it("never answers one path from another's review", async () => {
      const { authorize, asked } = setup();
      await authorize("Bearer good", "/metrics");
      await authorize("Bearer good", "/debug");
      expect(asked("subjectaccessreviews")).toBe(2);
    });
  });
});
