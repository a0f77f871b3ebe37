import { describe, expect, it } from "vitest";
import { serviceHttp } from "../support/service-http.ts";
import { condition, hasCondition, useOperatorEnvironment } from "./support.ts";

type WithProjectId = { status?: { projectId?: string } };

describe("Project", () => {
  const env = useOperatorEnvironment();

  async function projectsAtService(token: string): Promise<{ id: string; name: string }[]> {
    return serviceHttp(env.baseUrl, token).items<{ id: string; name: string }>("/projects");
  }

  it("creates the project, renames it on a displayName change, and is Ready", async () => {
    const account = await env.setUp();
    await env.startOperator();
    await env.create("projects", "demo", { displayName: "Demo" });
    const ready = (await env.waitFor("projects", "demo", hasCondition("Ready"))) as WithProjectId | undefined;
    const projectId = ready?.status?.projectId;
    expect(projectId).toMatch(/^[0-9a-f]{24}$/);
    expect(await projectsAtService(account.token)).toEqual([
      expect.objectContaining({ id: projectId, name: "Demo" }),
    ]);
    await env.patch("projects", "demo", { spec: { displayName: "Demo 2" } });
    await env.waitFor(
      "projects",
      "demo",
      (p) => p?.status?.observedGeneration === 2 && hasCondition("Ready")(p),
    );
    expect(await projectsAtService(account.token)).toEqual([
      expect.objectContaining({ id: projectId, name: "Demo 2" }),
    ]);
    expect(env.requests("createProject")).toHaveLength(1);
    expect(env.requests("renameProject")).toHaveLength(1);
  });

  it("deletes the project only after its Apps are gone", async () => {
    const account = await env.setUp();
    await env.startOperator();
    await env.create("projects", "demo", {});
    await env.create("apps", "web", { projectRef: { name: "demo" }, image: "nginx:1.27" });
    await env.waitFor("apps", "web", hasCondition("Ready"));
    await env.remove("projects", "demo");
    const waiting = await env.waitFor(
      "projects",
      "demo",
      hasCondition("Reconciling", "True", "DependentsExist"),
    );
    expect(condition(waiting, "Reconciling")?.message).toContain(`${env.namespace}/web`);
    expect(env.requests("deleteProject")).toEqual([]);
    await env.remove("apps", "web");
    await env.waitFor("projects", "demo", (p) => p === undefined);
    expect(env.requests("deleteProject").map((r) => r.status)).toEqual([204]);
    expect(await projectsAtService(account.token)).toEqual([]);
  });

  it("a pinned key cannot create a project: Stalled KeyProjectRestricted, no create sent", async () => {
    await env.setUp({ projectIds: ["c".repeat(24)] });
    await env.startOperator();
    await env.create("projects", "demo", {});
    const stalled = await env.waitFor(
      "projects",
      "demo",
      hasCondition("Stalled", "True", "KeyProjectRestricted"),
    );
    expect(condition(stalled, "Stalled")?.message).toContain("spec.projectId");
    expect(env.requests("createProject")).toEqual([]);
  });
});
