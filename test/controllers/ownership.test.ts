import { randomBytes } from "node:crypto";
import { CoreV1Api, CustomObjectsApi } from "@kubernetes/client-node";
import { afterEach, describe, expect, it } from "vitest";
import { type BerthObject, type BerthPlural, berthObjects, withCondition } from "../support/berth-objects.ts";
import { kubeConfig } from "../support/kube.ts";
import { serviceHttp } from "../support/service-http.ts";
import { approvedOrder, changingOperations, fastPolls, useOperatorEnvironment } from "./support.ts";

const kinds = { projects: "Project", apps: "App", grids: "Grid", serverorders: "ServerOrder" } as const;

/**
 * One external object, one owner: a copied manifest (`kubectl get -o yaml`, renamed, applied with
 * its annotations, labels and finalizer) or an adoption by spec ID of an object another resource
 * manages is refused, changes nothing, and is released without calls when deleted.
 */
describe("one managing resource per external object", () => {
  const env = useOperatorEnvironment();
  const config = kubeConfig();
  const objects = berthObjects(config, () => env.namespace);
  const custom = config.makeApiClient(CustomObjectsApi);
  const core = config.makeApiClient(CoreV1Api);
  const extraNamespaces: string[] = [];
  afterEach(async () => {
    for (const name of extraNamespaces.splice(0)) await core.deleteNamespace({ name }).catch(() => undefined);
  });

  const changes = () => changingOperations.map((op) => env.requests(op).length).reduce((a, b) => a + b, 0);

  /** What `kubectl get -o yaml` of `original` gives, renamed (into another namespace, maybe) and applied. */
  async function applyCopy(
    plural: BerthPlural,
    original: BerthObject,
    name: string,
    namespace = env.namespace,
  ) {
    const { labels, annotations, finalizers } = original.metadata;
    await custom.createNamespacedCustomObject({
      group: "berth.dev",
      version: "v1alpha1",
      plural,
      namespace,
      body: {
        apiVersion: "berth.dev/v1alpha1",
        kind: kinds[plural],
        metadata: { name, namespace, labels, annotations, finalizers },
        spec: { ...original.spec, deletionPolicy: "Delete" },
      },
    });
  }

  const claimed = (o: BerthObject | undefined) =>
    withCondition("Ready")(o) && o?.metadata.annotations?.["berth.dev/claimant"] !== undefined;

  const alreadyManaged = withCondition("Stalled", "True", "AlreadyManaged");

  async function refusedThenDeleted(plural: BerthPlural, original: BerthObject, copy: string) {
    const refused = await objects.waitFor(plural, copy, alreadyManaged, 30_000);
    const message = refused?.status?.conditions?.find((c) => c.type === "Stalled")?.message ?? "";
    expect(message).toContain(`${kinds[plural]} ${env.namespace}/${original.metadata.name} already manages`);
    expect(
      refused?.status?.[
        { projects: "projectId", apps: "appId", grids: "gridId", serverorders: "orderId" }[plural]
      ],
    ).toBeUndefined();
    const before = changes();
    await objects.remove(plural, copy);
    await objects.waitForGone(plural, copy, 30_000);
    expect(changes()).toBe(before);
  }

  it("a copied App is refused, changes nothing, and its deletion leaves the app running", async () => {
    const account = await env.setUp();
    const service = serviceHttp(env.baseUrl, account.token);
    await env.startOperator();
    await env.create("projects", "demo", {});
    await env.create("apps", "web", { projectRef: { name: "demo" }, image: "nginx:1.27" });
    const web = await objects.waitFor("apps", "web", claimed, 40_000);
    if (web === undefined) throw new Error("web not ready");
    const appId = String(web.status?.appId);
    const projectId = String(web.status?.projectId);
    const before = changes();
    await applyCopy("apps", web, "web-copy");
    await refusedThenDeleted("apps", web, "web-copy");
    expect(changes()).toBe(before);
    const app = await service.get<{ id: string }>(`/projects/${projectId}/apps/${appId}`);
    expect([app.status, app.body.id]).toEqual([200, appId]);
    expect((await objects.get("apps", "web"))?.status?.appId).toBe(appId);
  });

  it("copied Projects, Grids and ServerOrders are refused, and deleting them deletes nothing", async () => {
    const account = await env.setUp();
    const service = serviceHttp(env.baseUrl, account.token);
    await env.startOperator();
    await objects.create("projects", "demo", {});
    await objects.create("grids", "pool", {});
    await objects.create("serverorders", "batch", approvedOrder(2));
    const originals = {
      projects: await objects.waitFor("projects", "demo", claimed, 40_000),
      grids: await objects.waitFor("grids", "pool", claimed, 40_000),
      serverorders: await objects.waitFor("serverorders", "batch", claimed, 60_000),
    };
    const before = changes();
    for (const [plural, original] of Object.entries(originals) as [BerthPlural, BerthObject | undefined][]) {
      if (original === undefined) throw new Error(`${plural} not ready`);
      await applyCopy(plural, original, `${original.metadata.name}-copy`);
      await refusedThenDeleted(plural, original, `${original.metadata.name}-copy`);
    }
    expect(changes()).toBe(before);
    expect(env.requests("deprovisionServers")).toHaveLength(0);
    expect(await service.items("/projects")).toHaveLength(1);
    expect(await service.items("/grids")).toHaveLength(1);
    const servers = (await service.items("/servers")) as { state?: string }[];
    expect(servers.filter((s) => s.state !== "deprovisioned")).toHaveLength(2);
  });

  it("an App in another namespace adopting a managed app by spec.appId is refused, and its deletion deletes nothing", async () => {
    const account = await env.setUp();
    const service = serviceHttp(env.baseUrl, account.token);
    const other = `ctl-${randomBytes(4).toString("hex")}`;
    extraNamespaces.push(other);
    await core.createNamespace({ body: { metadata: { name: other } } });
    await core.createNamespacedSecret({
      namespace: other,
      body: {
        metadata: { name: "berth-credentials" },
        stringData: { apiKey: account.token, baseUrl: env.baseUrl },
      },
    });
    await env.startOperator({}, "10m", { namespaces: [env.namespace, other] });
    await env.create("projects", "demo", {});
    await env.create("apps", "web", { projectRef: { name: "demo" }, image: "nginx:1.27" });
    const web = await objects.waitFor("apps", "web", claimed, 40_000);
    const appId = String(web?.status?.appId);
    const projectId = String(web?.status?.projectId);
    const before = changes();
    const elsewhere = berthObjects(config, () => other);
    await custom.createNamespacedCustomObject({
      group: "berth.dev",
      version: "v1alpha1",
      plural: "apps",
      namespace: other,
      body: {
        apiVersion: "berth.dev/v1alpha1",
        kind: "App",
        metadata: { name: "web" },
        // Another image: were it managed, this App would push it onto the app at once.
        spec: { projectId, appId, image: "nginx:1.28" },
      },
    });
    const refused = await elsewhere.waitFor("apps", "web", alreadyManaged, 30_000);
    expect(refused?.status?.conditions?.find((c) => c.type === "Stalled")?.message).toContain(
      `App ${env.namespace}/web already manages app ${appId}`,
    );
    await elsewhere.remove("apps", "web");
    await elsewhere.waitForGone("apps", "web", 30_000);
    expect(changes()).toBe(before);
    const app = await service.get<{ id: string }>(`/projects/${projectId}/apps/${appId}`);
    expect([app.status, app.body.id]).toEqual([200, appId]);
  });

  it("hands over: the holder deleted with Orphan wakes the waiting copy, which takes the app over", async () => {
    await env.setUp();
    // Stalled resources are looked at again only after ten minutes: the take-over is the deletion's doing.
    await env.startOperator({ settings: { polls: fastPolls, stalledRetryMs: 600_000 } });
    await env.create("projects", "demo", {});
    await env.create("apps", "web", { projectRef: { name: "demo" }, image: "nginx:1.27" });
    const web = await objects.waitFor("apps", "web", claimed, 40_000);
    if (web === undefined) throw new Error("web not ready");
    await applyCopy("apps", web, "web-next");
    await objects.waitFor("apps", "web-next", alreadyManaged, 30_000);
    const creates = env.requests("createApp").length;
    await objects.patch("apps", "web", { spec: { deletionPolicy: "Orphan" } });
    await objects.remove("apps", "web");
    await objects.waitForGone("apps", "web");
    const taken = await objects.waitFor("apps", "web-next", claimed, 30_000);
    expect(taken?.status?.appId).toBe(web.status?.appId);
    expect(taken?.metadata.annotations?.["berth.dev/claimant"]).toBe(`${env.namespace}/web-next`);
    expect(env.requests("createApp")).toHaveLength(creates);
  });

  it("a copy made while the original's create is in doubt stands aside: the original keeps its app, the copy calls nothing", {
    timeout: 120_000,
  }, async () => {
    const account = await env.setUp();
    const service = serviceHttp(env.baseUrl, account.token);
    await env.startWithShortWrites();
    const projectId = await env.createdProject("demo");
    // The create acts after 4 s, past the client's 1.5 s: its outcome is in doubt, its call kept in
    // berth.dev/owned, which a copy of the manifest carries along.
    const fault = env.sim.injectFault({ operation: "createApp", latencyMs: 4000, times: 1 });
    await env.create("apps", "web", { projectRef: { name: "demo" }, image: "nginx:1.27" });
    await env.heldCall(fault, "the create call");
    const inDoubt = (o: BerthObject | undefined) =>
      (o?.metadata.annotations?.["berth.dev/owned"] ?? "").includes('"createApp"');
    const original = await objects.waitFor("apps", "web", inDoubt, 10_000);
    if (original === undefined) throw new Error("web is gone");
    // The original waits (suspended), so the copy is reconciled first, while the call is open.
    await objects.patch("apps", "web", { spec: { suspend: true } });
    const before = changes();
    await applyCopy("apps", original, "web-copy");
    const copy = await objects.waitFor("apps", "web-copy", alreadyManaged, 30_000);
    const message = copy?.status?.conditions?.find((c) => c.type === "Stalled")?.message ?? "";
    expect(message).toContain(`berth.dev/owned annotation of App ${env.namespace}/web`);
    expect(changes()).toBe(before);
    await objects.patch("apps", "web", { spec: { suspend: false } });
    const web = await objects.waitFor("apps", "web", claimed, 60_000);
    const appId = String(web?.status?.appId);
    const apps = () => service.items<{ id: string }>(`/projects/${projectId}/apps`);
    expect((await apps()).map((a) => a.id)).toEqual([appId]);
    expect((await objects.get("apps", "web-copy"))?.status?.appId).toBeUndefined();
    // Deleting the copy calls nothing: the original's app stays.
    const settled = changes();
    await objects.remove("apps", "web-copy");
    await objects.waitForGone("apps", "web-copy", 30_000);
    expect(changes()).toBe(settled);
    expect((await apps()).map((a) => a.id)).toEqual([appId]);
  });
});
