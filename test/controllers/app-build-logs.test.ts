import { describe, expect, it } from "vitest";
import { condition, hasCondition, until, useOperatorEnvironment, withSamples } from "./support.ts";

const source = { provider: "github", repository: "example/web", branch: "main" };
const secret = "s3cr3t-db-password-9f2c";

describe("App build logs", () => {
  const env = useOperatorEnvironment(withSamples);

  async function failedBuild(scopes?: string[]) {
    await env.setUp(scopes === undefined ? {} : { scopes });
    await env.putSecret("db", { password: secret });
    await env.startOperator();
    await env.create("projects", "demo", {});
    env.sim.failNextBuild({ step: "install" });
    await env.create("apps", "broken", {
      projectRef: { name: "demo" },
      source,
      env: [
        { name: "MODE", value: "production" },
        { name: "DB_PASSWORD", valueFrom: { secretKeyRef: { name: "db", key: "password" } } },
      ],
    });
    return env.waitFor("apps", "broken", hasCondition("Stalled", "True", "BuildFailed"));
  }

  it("puts the failed step's last lines in status.build.logTail and a Warning event, secrets masked, read once", async () => {
    await failedBuild();
    const app = await env.waitFor("apps", "broken", (a) => a?.status?.build?.logTail !== undefined);
    const tail = app?.status?.build?.logTail ?? "";
    const lines = tail.split("\n");
    expect(lines.length).toBeGreaterThan(1);
    expect(lines.length).toBeLessThanOrEqual(20);
    expect(lines.every((line) => line.includes("[install]"))).toBe(true);
    expect(tail).toContain("ERROR: step install failed");
    expect(tail).toContain("env MODE=production");
    expect(tail).toContain("env DB_PASSWORD=****");
    expect(condition(app, "Stalled")?.message).toContain("status.build.logTail");
    await until(async () => (await env.eventNotes("broken", "BuildLog")).length > 0, "the BuildLog event");
    const [note] = await env.eventNotes("broken", "BuildLog");
    expect(note).toContain(`build ${app?.status?.build?.id} failed`);
    expect(note).toContain("ERROR: step install failed");
    expect(JSON.stringify(app?.status)).not.toContain(secret);
    expect(note).not.toContain(secret);
    // Read once per failed build, and the event not repeated by a later reconcile (its echo is
    // written after its calls and events).
    await env.patch("apps", "broken", {
      metadata: { annotations: { "berth.dev/reconcile-requested-at": "after-failure" } },
    });
    await env.waitFor("apps", "broken", (a) => a?.status?.lastHandledReconcileAt === "after-failure");
    expect(env.requests("getBuildLogs").map((r) => r.status)).toEqual([200]);
    expect(await env.eventCount("broken", "BuildLog")).toBe(1);
  });

  it("without monitoring:read, says so in the BuildFailed message and makes no log call", async () => {
    const app = await failedBuild(["projects:admin", "apps:admin", "compute:spend"]);
    const stalled = await env.waitFor("apps", "broken", (a) =>
      (condition(a, "Stalled")?.message ?? "").includes("monitoring:read"),
    );
    expect(stalled?.status?.build?.logTail).toBeUndefined();
    expect(condition(app, "Ready")).toMatchObject({ status: "False", reason: "BuildFailed" });
    expect(env.requests("getBuildLogs")).toEqual([]);
  });
});
