import { describe, expect, it } from "vitest";
import { serviceHttp } from "../support/service-http.ts";
import { condition, hasCondition, until, useOperatorEnvironment } from "./support.ts";

interface ServiceApp {
  id: string;
  projectId: string;
}

describe("moving an App between projects", () => {
  const env = useOperatorEnvironment();
  const image = { image: "nginx:1.27", ports: [{ port: 80, protocol: "http80_load_balancer" }] };

  async function appIn(from: string, to: string) {
    await env.create("projects", from, {});
    await env.create("projects", to, {});
    await env.create("apps", "web", { projectRef: { name: from }, ...image });
    const ready = await env.waitFor("apps", "web", hasCondition("Ready"));
    const target = await env.waitFor("projects", to, (p) => p?.status?.projectId !== undefined);
    return {
      appId: ready?.status?.appId ?? "",
      from: ready?.status?.projectId ?? "",
      to: target?.status?.projectId ?? "",
    };
  }

  it("moves the app with the service's move operation, keeping its ID, Moving then Ready", async () => {
    const account = await env.setUp();
    const service = serviceHttp(env.baseUrl, account.token);
    await env.startOperator();
    const { appId, from, to } = await appIn("old", "new");
    await env.patch("apps", "web", { spec: { projectRef: { name: "new" } } });
    const moved = await env.waitFor(
      "apps",
      "web",
      (a) => a?.status?.projectId === to && hasCondition("Ready")(a),
    );
    expect(moved?.status?.appId).toBe(appId);
    expect(await service.items<ServiceApp>(`/projects/${to}/apps`)).toEqual([
      expect.objectContaining({ id: appId }),
    ]);
    expect(await service.items<ServiceApp>(`/projects/${from}/apps`)).toEqual([]);
    expect(env.requests("moveApp").map((r) => r.status)).toEqual([200]);
    expect(env.requests("createApp")).toHaveLength(1);
    expect(await env.eventReasons("web")).toContain("Moved");
  });

  it("without apps:admin: Stalled MissingScopes before any move call", async () => {
    await env.setUp({ scopes: ["projects:admin", "apps:write", "compute:spend"] });
    await env.startOperator();
    const { from } = await appIn("old", "new");
    await env.patch("apps", "web", { spec: { projectRef: { name: "new" } } });
    const stalled = await env.waitFor("apps", "web", hasCondition("Stalled", "True", "MissingScopes"));
    expect(condition(stalled, "Stalled")?.message).toContain("apps:admin");
    expect(stalled?.status?.projectId).toBe(from);
    expect(env.requests("moveApp")).toEqual([]);
  });

  it("refuses a move when the key's user is not the app's owner, leaving the app where it is", async () => {
    const editor = await env.setUp();
    const owner = env.sim.addUser({ email: `owner-${env.namespace}@example.test`, balance: 1000 });
    const ownerKey = env.sim.addKey({ userId: owner.id });
    const ownerHttp = serviceHttp(env.baseUrl, ownerKey.token);
    const from = (await ownerHttp.post<{ id: string }>("/projects", { name: "theirs" })).body.id;
    const to = (await ownerHttp.post<{ id: string }>("/projects", { name: "also-theirs" })).body.id;
    const app = (
      await ownerHttp.post<{ id: string }>(`/projects/${from}/apps`, {
        name: "web",
        config: { image: "nginx:1.27" },
      })
    ).body;
    for (const resourceId of [from, to])
      env.sim.share({ resourceType: "project", resourceId, userId: editor.userId, role: "editor" });
    await env.startOperator();
    await env.create("apps", "web", { projectId: from, appId: app.id, image: "nginx:1.27" });
    await env.waitFor("apps", "web", (a) => a?.status?.appId === app.id);
    await env.patch("apps", "web", { spec: { projectId: to } });
    const stalled = await env.waitFor("apps", "web", hasCondition("Stalled", "True", "Forbidden"));
    expect(condition(stalled, "Stalled")?.message).toContain("ownership");
    expect(env.requests("moveApp")).toEqual([]);
    expect((await ownerHttp.get<ServiceApp>(`/projects/${from}/apps/${app.id}`)).body.projectId).toBe(from);
  });

  it("a restart while a move's answer is lost finds the app in its new project: one app, moved", async () => {
    const account = await env.setUp();
    const service = serviceHttp(env.baseUrl, account.token);
    const first = await env.startOperator({}, "10m", { shutdownGrace: "1s" });
    const { appId, from, to } = await appIn("old", "new");
    // The move acts and its answer is lost; the client's retry (404: the app has left) hangs.
    env.sim.injectFault({ operation: "moveApp", dropResponse: true, times: 1 });
    env.sim.injectFault({ operation: "moveApp", latencyMs: 60_000 });
    await env.patch("apps", "web", { spec: { projectRef: { name: "new" } } });
    await until(
      async () => (await service.items<ServiceApp>(`/projects/${to}/apps`)).length === 1,
      "the move to act",
    );
    await first.stop();
    expect((await env.get("apps", "web"))?.status?.projectId).toBe(from);
    env.sim.clearFaults();
    await env.startOperator();
    const moved = await env.waitFor(
      "apps",
      "web",
      (a) => a?.status?.projectId === to && hasCondition("Ready")(a),
    );
    expect(moved?.status?.appId).toBe(appId);
    expect(await service.items<ServiceApp>(`/projects/${to}/apps`)).toEqual([
      expect.objectContaining({ id: appId }),
    ]);
    expect(await service.items<ServiceApp>(`/projects/${from}/apps`)).toEqual([]);
    expect(env.requests("createApp")).toHaveLength(1);
  });
});
