import { describe, expect, it } from "vitest";
import { serviceHttp } from "../support/service-http.ts";
import { condition, hasCondition, useOperatorEnvironment } from "./support.ts";

type WithMembers = {
  status?: { projectId?: string; members?: { userId: string; role: string; owner?: boolean }[] };
};

describe("Project spec.members", () => {
  const env = useOperatorEnvironment();

  /** The project's shares at the service, as `userId:role` (the owner marked with a *). */
  async function sharesAtService(token: string, projectId: string): Promise<string[]> {
    const shares = await serviceHttp(env.baseUrl, token).items<{
      userId: string;
      role: string;
      accountOwner: boolean;
    }>(`/projects/${projectId}/shares`);
    return shares.map((s) => `${s.userId}:${s.role}${s.accountOwner ? "*" : ""}`);
  }

  const readyAt =
    (generation: number) => (p: (WithMembers & { status?: { observedGeneration?: number } }) | undefined) =>
      p?.status?.observedGeneration === generation && hasCondition("Ready")(p as never);

  it("adds, changes and removes shares until they match, leaving the owner alone", async () => {
    const account = await env.setUp();
    const ann = env.sim.addUser({ email: `ann-${env.namespace}@example.test` });
    const bob = env.sim.addUser({ email: `bob-${env.namespace}@example.test` });
    await env.startOperator();
    await env.create("projects", "team", {
      members: [
        { email: ann.email.toUpperCase(), role: "viewer" },
        { userId: bob.id, role: "editor" },
      ],
    });
    const ready = (await env.waitFor("projects", "team", readyAt(1))) as WithMembers | undefined;
    const projectId = ready?.status?.projectId ?? "";
    expect(await sharesAtService(account.token, projectId)).toEqual([
      `${account.userId}:owner*`,
      `${ann.id}:viewer`,
      `${bob.id}:editor`,
    ]);
    expect(ready?.status?.members).toEqual([
      expect.objectContaining({ userId: account.userId, role: "owner", owner: true }),
      expect.objectContaining({ userId: ann.id, role: "viewer" }),
      expect.objectContaining({ userId: bob.id, role: "editor" }),
    ]);

    await env.patch("projects", "team", {
      spec: {
        members: [
          { email: ann.email, role: "editor" },
          { userId: bob.id, role: "editor" },
        ],
      },
    });
    await env.waitFor("projects", "team", readyAt(2));
    expect(await sharesAtService(account.token, projectId)).toEqual([
      `${account.userId}:owner*`,
      `${ann.id}:editor`,
      `${bob.id}:editor`,
    ]);

    await env.patch("projects", "team", { spec: { members: [{ email: ann.email, role: "editor" }] } });
    const trimmed = (await env.waitFor("projects", "team", readyAt(3))) as WithMembers | undefined;
    expect(await sharesAtService(account.token, projectId)).toEqual([
      `${account.userId}:owner*`,
      `${ann.id}:editor`,
    ]);
    expect(trimmed?.status?.members?.map((m) => m.userId)).toEqual([account.userId, ann.id]);
    expect(env.requests("addProjectShare")).toHaveLength(2);
    expect(env.requests("changeProjectShare")).toHaveLength(1);
    expect(env.requests("removeProjectShare")).toHaveLength(1);
    expect(await env.eventReasons("team")).toEqual(expect.arrayContaining(["Shared", "Unshared"]));
  });

  it("without spec.members, shares made by hand stay; members: [] removes them", async () => {
    const account = await env.setUp();
    const guest = env.sim.addUser({ email: `guest-${env.namespace}@example.test` });
    await env.startOperator();
    await env.create("projects", "solo", {});
    const ready = (await env.waitFor("projects", "solo", readyAt(1))) as WithMembers | undefined;
    const projectId = ready?.status?.projectId ?? "";
    env.sim.share({ resourceType: "project", resourceId: projectId, userId: guest.id, role: "viewer" });
    await env.patch("projects", "solo", { spec: { displayName: "Solo 2" } });
    await env.waitFor("projects", "solo", readyAt(2));
    expect(env.requests("listProjectShares")).toEqual([]);
    expect(await sharesAtService(account.token, projectId)).toContain(`${guest.id}:viewer`);

    await env.patch("projects", "solo", { spec: { members: [] } });
    await env.waitFor("projects", "solo", readyAt(3));
    expect(await sharesAtService(account.token, projectId)).toEqual([`${account.userId}:owner*`]);
  });

  it("without projects:admin: Stalled MissingScopes naming it, before any sharing call", async () => {
    await env.setUp({ scopes: ["projects:write"] });
    const ann = env.sim.addUser({ email: `ann2-${env.namespace}@example.test` });
    await env.startOperator();
    await env.create("projects", "locked", { members: [{ userId: ann.id, role: "viewer" }] });
    const stalled = await env.waitFor("projects", "locked", hasCondition("Stalled", "True", "MissingScopes"));
    expect(condition(stalled, "Stalled")?.message).toContain("projects:admin");
    expect(env.requests().filter((r) => r.operation?.includes("Share"))).toEqual([]);
    expect(env.requests("createProject")).toEqual([]);
  });
});
