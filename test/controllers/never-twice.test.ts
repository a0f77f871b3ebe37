import { describe, expect, it } from "vitest";
import { berthObjects, conditionOf, pending, withCondition } from "../support/berth-objects.ts";
import { kubeConfig } from "../support/kube.ts";
import { serviceHttp } from "../support/service-http.ts";
import { hasCondition, until, useOperatorEnvironment } from "./support.ts";

// Issue "Never spend twice, never leak": the two reproductions, under the simulator's harsh defaults.

interface Named {
  id: string;
  name: string;
}
interface ServiceServer {
  address: string;
  state: string;
}

const order = {
  csp: "native",
  region: "eu-central",
  zone: "eu-central-1a",
  instanceType: "native.small",
  count: 1,
  approved: true,
  maxHourlyCost: "0.10",
};

describe("never spend twice, never leak", () => {
  const env = useOperatorEnvironment();
  const objects = berthObjects(kubeConfig(), () => env.namespace);

  it("a create the service acted on, then dropped and forgot, leaves one project and one grid", async () => {
    const account = await env.setUp();
    const service = serviceHttp(env.baseUrl, account.token);
    for (const operation of ["createProject", "createGrid"]) {
      env.sim.injectFault({ operation, dropResponse: true, forgetIdempotency: true, times: 1 });
    }
    await env.startOperator();
    await objects.create("projects", "shop", { displayName: "shop-uncertain" });
    await objects.create("grids", "edge", { displayName: "edge-uncertain" });
    const project = await objects.waitFor("projects", "shop", withCondition("Ready"));
    const grid = await objects.waitFor("grids", "edge", withCondition("Ready"));
    const projects = await service.items<Named>("/projects?name=shop-uncertain");
    const grids = await service.items<Named>("/grids?name=edge-uncertain");
    expect(projects.map((p) => p.id)).toEqual([project?.status?.projectId]);
    expect(grids.map((g) => g.id)).toEqual([grid?.status?.gridId]);
    // The dropped create acted once; berth looked it up instead of creating again.
    expect(env.requests("createProject").filter((r) => r.status === 201)).toHaveLength(1);
    expect(env.requests("createGrid").filter((r) => r.status === 201)).toHaveLength(1);
    expect(project?.status?.owner).toEqual({
      userId: account.userId,
      credential: expect.stringMatching(/^key-/),
    });
  });

  it("a create whose answer is lost, then a rename: found by the name it was sent with, renamed, never made twice", async () => {
    const account = await env.setUp();
    const service = serviceHttp(env.baseUrl, account.token);
    env.sim.injectFault({
      operation: "createProject",
      dropResponse: true,
      forgetIdempotency: true,
      latencyMs: 2000,
      times: 1,
    });
    await env.startOperator();
    await objects.create("projects", "shop", { displayName: "shop-before" });
    await objects.waitFor("projects", "shop", (p) => pending(p, "createProject") !== undefined);
    await objects.patch("projects", "shop", { spec: { displayName: "shop-after" } });
    const project = await objects.waitFor(
      "projects",
      "shop",
      (p) => withCondition("Ready")(p) && p?.status?.observedGeneration === p?.metadata.generation,
      30_000,
    );
    const all = await service.items<Named>("/projects");
    expect(all.map((p) => [p.id, p.name])).toEqual([[project?.status?.projectId, "shop-after"]]);
    expect(env.requests("createProject").filter((r) => r.status === 201)).toHaveLength(1);
  });

  it("a create still running at the service when berth looks, then a rename: sent again under its key, answered once", async () => {
    const account = await env.setUp();
    const service = serviceHttp(env.baseUrl, account.token);
    // The service takes 6 s to act; the operator is stopped while the call runs (its answer is lost).
    const held = env.sim.injectFault({ operation: "createProject", latencyMs: 6000, times: 1 });
    const first = await env.startOperator({}, "10m", { shutdownGrace: "1s" });
    await objects.create("projects", "shop", { displayName: "shop-before" });
    await objects.waitFor("projects", "shop", (p) => pending(p, "createProject") !== undefined);
    // The moment: the create reached the service (its fault hit) and has not acted yet.
    await until(() => env.faultSpent(held), "the create held at the service");
    const createsAtStop = env.requests("createProject");
    await first.stop();
    expect(createsAtStop).toEqual([]);
    const loggedAtStop = env.sim.requests().length;
    await objects.patch("projects", "shop", { spec: { displayName: "shop-after" } });
    await env.startOperator();
    const project = await objects.waitFor(
      "projects",
      "shop",
      (p) => withCondition("Ready")(p) && p?.status?.observedGeneration === p?.metadata.generation,
      30_000,
    );
    // Looked at only once the first call acted at the service.
    const acted = (r: { operation: string | null; status: number; replayed: boolean }) =>
      r.operation === "createProject" && r.status === 201 && !r.replayed;
    await until(() => env.requests("createProject").some(acted), "the held create acted");
    // The moment: the restarted operator asked while the create still ran (answered before it acted).
    const sinceStop = env.sim.requests().slice(loggedAtStop);
    const before = sinceStop.slice(0, sinceStop.findIndex(acted)).map((r) => `${r.operation} ${r.status}`);
    expect(before).toContain("createProject 409");
    const all = await service.items<Named>("/projects");
    expect(all.map((p) => [p.id, p.name])).toEqual([[project?.status?.projectId, "shop-after"]]);
    expect(env.requests("createProject").filter((r) => r.status === 201 && !r.replayed)).toHaveLength(1);
  });

  it("a lookup never adopts an object another resource holds, even of the same name", async () => {
    const account = await env.setUp();
    const service = serviceHttp(env.baseUrl, account.token);
    await env.startOperator();
    await objects.create("projects", "first", { displayName: "same" });
    const first = await objects.waitFor("projects", "first", withCondition("Ready"));
    env.sim.injectFault({
      operation: "createProject",
      dropResponse: true,
      forgetIdempotency: true,
      times: 1,
    });
    await objects.create("projects", "second", { displayName: "same" });
    const second = await objects.waitFor("projects", "second", withCondition("Ready"));
    expect(second?.status?.projectId).not.toBe(first?.status?.projectId);
    expect((await service.items<Named>("/projects?name=same")).map((p) => p.id).sort()).toEqual(
      [first?.status?.projectId, second?.status?.projectId].sort(),
    );
  });

  it("a Project whose project is already gone at the service finishes deleting", async () => {
    const account = await env.setUp();
    await env.startOperator();
    await objects.create("projects", "gone", {});
    const ready = await objects.waitFor("projects", "gone", withCondition("Ready"));
    const projectId = ready?.status?.projectId as string;
    const deleted = await fetch(`${env.baseUrl}/projects/${projectId}`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${account.token}` },
    });
    expect(deleted.status).toBe(204);
    await objects.remove("projects", "gone");
    await objects.waitForGone("projects", "gone");
    expect(env.requests("deleteProject")).toHaveLength(1);
  });

  it("a create the service refused succeeds once the cause is fixed (the refusal doesn't replay for 24 h)", async () => {
    const account = await env.setUp();
    const owner = env.sim.addUser({ email: `owner-${env.namespace}@example.test`, balance: 1000 });
    const ownerApi = serviceHttp(env.baseUrl, env.sim.addKey({ userId: owner.id }).token);
    const projectId = (await ownerApi.post<{ id: string }>("/projects", { name: "shared" })).body.id;
    env.sim.share({ resourceType: "project", resourceId: projectId, userId: account.userId, role: "viewer" });
    await env.startOperator();
    await env.create("apps", "web", { projectId, image: "nginx:1.27" });
    await env.waitFor("apps", "web", hasCondition("Stalled", "True", "Forbidden"));
    env.sim.share({ resourceType: "project", resourceId: projectId, userId: account.userId, role: "editor" });
    const ready = await env.waitFor("apps", "web", hasCondition("Ready"), 30_000);
    expect(ready?.status?.appId).toMatch(/^[0-9a-f]{24}$/);
    const creates = env.requests("createApp");
    // Refused while a viewer (a retry replays that refusal at most once), then created under a new key.
    expect(creates.at(-1)).toMatchObject({ status: 201, replayed: false });
    expect(creates.slice(0, -1).every((r) => r.status === 403)).toBe(true);
  });

  it("a credentials Secret deleted before its ServerOrder stays until the servers are deprovisioned with it", async () => {
    const owner = await env.setUp();
    const service = serviceHttp(env.baseUrl, owner.token);
    // The operator's default credentials belong to another user.
    const other = env.sim.addUser({ email: `other-${env.namespace}@example.test`, balance: 1000 });
    await env.putSecret("fallback", {
      apiKey: env.sim.addKey({ userId: other.id }).token,
      baseUrl: env.baseUrl,
    });
    await env.startOperator({}, "10m", { defaultCredentials: `${env.namespace}/fallback` });
    await objects.create("serverorders", "batch", order);
    const ready = await objects.waitFor("serverorders", "batch", withCondition("Ready"));
    const orderId = ready?.status?.orderId as string;
    await until(async () =>
      ((await env.secretFinalizers("berth-credentials")) ?? []).includes("berth.dev/credentials-in-use"),
    );

    await env.deleteSecret("berth-credentials");
    await objects.remove("serverorders", "batch");
    await objects.waitForGone("serverorders", "batch", 30_000);
    // Deprovisioned with the owner's key (still in the Secret the finalizer kept).
    expect(env.requests("deprovisionServers").map((r) => r.status)).toEqual([202]);
    const after = await service.items<ServiceServer>(`/servers?orderId=${orderId}`);
    expect(after.every((s) => s.state === "deprovisioning")).toBe(true);
    // Released once nothing depends on it, the Secret goes.
    await until(async () => (await env.secretFinalizers("berth-credentials")) === undefined);
  });

  it("a key of another user under a ServerOrder: deletion stalls CredentialsChanged and releases nothing", async () => {
    const owner = await env.setUp();
    const service = serviceHttp(env.baseUrl, owner.token);
    await env.startOperator();
    await objects.create("serverorders", "batch", order);
    const ready = await objects.waitFor("serverorders", "batch", withCondition("Ready"));
    const orderId = ready?.status?.orderId as string;
    expect(ready?.status?.owner).toMatchObject({ userId: owner.userId });

    // The Secret is rotated to another user's key (a wrong paste, or a GitOps repo of another team).
    const other = env.sim.addUser({ email: `other-${env.namespace}@example.test`, balance: 1000 });
    const otherKey = env.sim.addKey({ userId: other.id });
    await env.putSecret("berth-credentials", { apiKey: otherKey.token, baseUrl: env.baseUrl });
    await objects.remove("serverorders", "batch");
    const stalled = await objects.waitFor(
      "serverorders",
      "batch",
      withCondition("Stalled", "True", "CredentialsChanged"),
    );
    const message = conditionOf(stalled, "Stalled")?.message ?? "";
    expect(message).toContain(owner.userId);
    expect(message).toContain(other.id);
    expect(message).not.toContain(owner.token);
    expect(message).not.toContain(otherKey.token);
    // Stalled is written by the reconcile that would have released: it deprovisioned nothing.
    expect(env.requests("deprovisionServers")).toEqual([]);
    expect(await objects.get("serverorders", "batch")).toBeDefined();
    const servers = await service.items<ServiceServer>(`/servers?orderId=${orderId}`);
    expect(servers.map((s) => s.state)).toEqual(["running"]);

    // The owner's key comes back: the deletion finishes and the server is deprovisioned.
    await env.putSecret("berth-credentials", { apiKey: owner.token, baseUrl: env.baseUrl });
    await objects.waitForGone("serverorders", "batch", 30_000);
    expect(env.requests("deprovisionServers").map((r) => r.status)).toEqual([202]);
    const after = await service.items<ServiceServer>(`/servers?orderId=${orderId}`);
    expect(after.every((s) => s.state === "deprovisioning")).toBe(true);
  });
});
