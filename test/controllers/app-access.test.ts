import { describe, expect, it } from "vitest";
import { condition, hasCondition, useOperatorEnvironment } from "./support.ts";

describe("App credentials and scopes", () => {
  const env = useOperatorEnvironment();

  it("a key without compute:spend: Stalled MissingScopes naming it, and no create is sent", async () => {
    await env.setUp({ scopes: ["projects:admin", "apps:admin"] });
    await env.startOperator();
    await env.create("projects", "demo", {});
    await env.waitFor("projects", "demo", hasCondition("Ready"));
    await env.create("apps", "web", { projectRef: { name: "demo" }, image: "nginx:1.27" });
    const app = await env.waitFor("apps", "web", hasCondition("Stalled", "True", "MissingScopes"));
    expect(condition(app, "Stalled")?.message).toContain("compute:spend");
    expect(condition(app, "Ready")).toMatchObject({ status: "False", reason: "MissingScopes" });
    expect(env.requests("createApp")).toEqual([]);
  });

  it("a key pinned to another project: Stalled KeyProjectRestricted without calling", async () => {
    await env.setUp({ projectIds: ["c".repeat(24)] });
    await env.startOperator();
    await env.create("apps", "web", { projectId: "d".repeat(24), image: "nginx:1.27" });
    const app = await env.waitFor("apps", "web", hasCondition("Stalled", "True", "KeyProjectRestricted"));
    expect(condition(app, "Stalled")?.message).toContain("d".repeat(24));
    expect(env.requests().map((r) => r.operation)).toEqual(["getMe"]);
  });

  it("no credentials: Stalled CredentialsNotFound naming the Secrets it looked for; a new Secret fixes it", async () => {
    const account = await env.setUp();
    await env.startOperator();
    await env.create("apps", "web", {
      projectId: "d".repeat(24),
      image: "nginx:1.27",
      credentialsRef: { name: "team-key" },
    });
    const app = await env.waitFor("apps", "web", hasCondition("Stalled", "True", "CredentialsNotFound"));
    expect(condition(app, "Stalled")?.message).toContain(`Secret ${env.namespace}/team-key`);
    await env.putSecret("team-key", { apiKey: account.token, baseUrl: env.baseUrl });
    // The Secret's arrival re-enqueues the App at once (not after the slow Stalled retry).
    const next = await env.waitFor(
      "apps",
      "web",
      (a) => condition(a, "Stalled")?.reason !== "CredentialsNotFound",
      1500,
    );
    expect(JSON.stringify(next?.status)).not.toContain(account.token);
  });
});
