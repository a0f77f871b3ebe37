import { spawn } from "node:child_process";
import { CoreV1Api, type V1ConfigMap } from "@kubernetes/client-node";
import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { berthObjects, conditionOf, withCondition } from "../support/berth-objects.ts";
import { kubeConfig, kubeconfigPath, unlessNotFound } from "../support/kube.ts";
import { hasCondition, reconciledMore, reconciles, until, useOperatorEnvironment } from "./support.ts";

/**
 * `kubectl wait` on an object, as a CI job runs it. `asked` settles once kubectl's first request
 * about the object was answered (-v=6 logs each request with its status); `done` gives its output.
 */
function kubectlWait(namespace: string, object: string, condition: string) {
  const args = [
    "--kubeconfig",
    kubeconfigPath(),
    "-n",
    namespace,
    "-v=6",
    "wait",
    object,
    condition,
    "--timeout=30s",
  ];
  const child = spawn("kubectl", args, { timeout: 40_000 });
  const plural = object.split("/")[0] ?? "";
  const answered = new RegExp(`/namespaces/${namespace}/${plural}s\\S*\\s+\\d{3}\\s`);
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => {
    stdout += String(chunk);
  });
  const asked = new Promise<void>((resolve, reject) => {
    child.stderr.on("data", (chunk) => {
      stderr += String(chunk);
      if (answered.test(stderr)) resolve();
    });
    child.on("close", () => reject(new Error(`kubectl ended before asking about ${object}: ${stderr}`)));
  });
  const done = new Promise<string>((resolve, reject) => {
    child.on("close", (code) =>
      code === 0
        ? resolve(stdout)
        : reject(new Error(`kubectl wait ${condition} failed (${code}): ${stderr}`)),
    );
  });
  return { asked, done };
}
const ready = "berth.dev/ready";

/**
 * spec.outputs.configMapName: berth writes a ConfigMap other workloads consume, owned by the
 * resource, marked ready only while the resource is Ready, and never one berth did not create.
 * (The test control plane runs no garbage collector: the ownerReference is what deletion relies on.)
 */
describe("outputs for other workloads", () => {
  const env = useOperatorEnvironment();
  const objects = berthObjects(kubeConfig(), () => env.namespace);
  const core = kubeConfig().makeApiClient(CoreV1Api);

  async function readConfigMap(name: string): Promise<V1ConfigMap | undefined> {
    return unlessNotFound(core.readNamespacedConfigMap({ name, namespace: env.namespace }));
  }

  async function waitForConfigMap(name: string, test: (configMap: V1ConfigMap | undefined) => boolean) {
    let last: V1ConfigMap | undefined;
    await until(
      async () => {
        last = await readConfigMap(name);
        return test(last);
      },
      `ConfigMap ${name}: last ${JSON.stringify(last)}`,
    );
    return last;
  }

  it("App Ready: url, IDs and one address per port, marked ready, owned by the App; renamed: the old one goes", async () => {
    await env.setUp();
    await env.startOperator();
    await env.create("projects", "demo", {});
    // As a CI job would, from before the App exists: wait for the ConfigMap, then for its ready label.
    const created = kubectlWait(env.namespace, "configmap/web-outputs", "--for=create");
    const waited = created.done.then(
      () =>
        kubectlWait(
          env.namespace,
          "configmap/web-outputs",
          "--for=jsonpath={.metadata.labels.berth\\.dev/ready}=true",
        ).done,
    );
    // kubectl has asked the API server about the ConfigMap (and was told it isn't there) before the App is made.
    await created.asked;
    await env.create("apps", "web", {
      projectRef: { name: "demo" },
      image: "nginx:1.27",
      ports: [{ port: 80, protocol: "http80_load_balancer" }],
      outputs: { configMapName: "web-outputs" },
    });
    const app = await env.waitFor("apps", "web", hasCondition("Ready"));
    expect(await waited).toContain("condition met");
    const configMap = await waitForConfigMap("web-outputs", (c) => c?.metadata?.labels?.[ready] === "true");
    expect(configMap?.data).toEqual({
      url: app?.status?.url,
      appId: app?.status?.appId,
      projectId: app?.status?.projectId,
      "address-80": app?.status?.url,
    });
    expect(app?.status?.url).toMatch(/^https:\/\//);
    expect(configMap?.metadata?.annotations?.[ready]).toBe("true");
    expect(configMap?.metadata?.ownerReferences).toEqual([
      expect.objectContaining({
        apiVersion: "berth.dev/v1alpha1",
        kind: "App",
        name: "web",
        uid: app?.metadata.uid,
        controller: true,
      }),
    ]);
    expect(app?.status?.outputs).toEqual({ configMapName: "web-outputs" });

    // A reconcile that changes no output writes nothing (its echo is written after its writes).
    const version = configMap?.metadata?.resourceVersion;
    await env.patch("apps", "web", {
      metadata: { annotations: { "berth.dev/reconcile-requested-at": "touch" } },
    });
    await env.waitFor("apps", "web", (a) => a?.status?.lastHandledReconcileAt === "touch");
    expect((await readConfigMap("web-outputs"))?.metadata?.resourceVersion).toBe(version);

    await env.patch("apps", "web", { spec: { outputs: { configMapName: "web-endpoints" } } });
    const renamed = await waitForConfigMap("web-endpoints", (c) => c?.data?.url === app?.status?.url);
    expect(renamed?.metadata?.labels?.[ready]).toBe("true");
    await until(async () => (await readConfigMap("web-outputs")) === undefined, "the old ConfigMap deleted");
    await env.waitFor("apps", "web", (a) => a?.status?.outputs?.configMapName === "web-endpoints");

    // Deleted: the garbage collector removes the ConfigMap through its controller reference.
    await env.remove("apps", "web");
    await env.waitFor("apps", "web", (a) => a === undefined);
    expect((await readConfigMap("web-endpoints"))?.metadata?.ownerReferences?.[0]?.uid).toBe(
      app?.metadata.uid,
    );
  });

  it("a ConfigMap berth did not create is never overwritten: Stalled OutputConflict until it is gone", async () => {
    await env.setUp();
    await core.createNamespacedConfigMap({
      namespace: env.namespace,
      body: { metadata: { name: "taken" }, data: { projectId: "someone else's" } },
    });
    await env.startOperator();
    await objects.create("projects", "demo", { outputs: { configMapName: "taken" } });
    const stalled = await objects.waitFor(
      "projects",
      "demo",
      withCondition("Stalled", "True", "OutputConflict"),
    );
    expect(conditionOf(stalled, "Ready")?.status).toBe("False");
    expect(conditionOf(stalled, "Stalled")?.message).toContain("ConfigMap taken already exists");
    expect(conditionOf(stalled, "Stalled")?.message).toContain("spec.outputs.configMapName");
    expect(stalled?.status?.projectId).toMatch(/^[0-9a-f]{24}$/);
    await env.waitForEvent("demo", "OutputConflict");
    const untouched = await readConfigMap("taken");
    expect(untouched?.data).toEqual({ projectId: "someone else's" });
    expect(untouched?.metadata?.ownerReferences).toBeUndefined();
    expect(untouched?.metadata?.labels).toBeUndefined();

    await core.deleteNamespacedConfigMap({ name: "taken", namespace: env.namespace });
    const recovered = await objects.waitFor("projects", "demo", withCondition("Ready"));
    expect(conditionOf(recovered, "Stalled")).toBeUndefined();
    const written = await waitForConfigMap("taken", (c) => c?.metadata?.labels?.[ready] === "true");
    expect(written?.data).toEqual({ projectId: recovered?.status?.projectId });
  });

  it("not Ready: the ConfigMap holds only what is known and no ready mark; Ready adds both", async () => {
    await env.setUp();
    await env.startOperator();
    await objects.create("projects", "later", {
      credentialsRef: { name: "not-yet" },
      outputs: { configMapName: "later-outputs" },
    });
    await objects.waitFor("projects", "later", withCondition("Stalled", "True", "CredentialsNotFound"));
    const waiting = await waitForConfigMap("later-outputs", (c) => c !== undefined);
    expect(waiting?.data).toBeUndefined();
    expect(waiting?.metadata?.labels?.[ready]).toBeUndefined();
    expect(waiting?.metadata?.annotations?.[ready]).toBeUndefined();

    await objects.patch("projects", "later", { spec: { credentialsRef: null } });
    const project = await objects.waitFor("projects", "later", withCondition("Ready"));
    const done = await waitForConfigMap("later-outputs", (c) => c?.metadata?.labels?.[ready] === "true");
    expect(done?.data).toEqual({ projectId: project?.status?.projectId });
  });

  it("Grid and ServerOrder: gridId; orderId, servers one a line and their count", async () => {
    await env.setUp();
    await env.startOperator();
    await objects.create("grids", "pool", { outputs: { configMapName: "pool-outputs" } });
    await objects.create("serverorders", "batch", {
      csp: "native",
      region: "eu-central",
      zone: "eu-central-1a",
      instanceType: "native.small",
      count: 2,
      approved: true,
      maxHourlyCost: "0.20",
      gridRefs: [{ name: "pool" }],
      outputs: { configMapName: "batch-outputs" },
    });
    const grid = await objects.waitFor("grids", "pool", withCondition("Ready"));
    const gridOutputs = await waitForConfigMap(
      "pool-outputs",
      (c) => c?.metadata?.labels?.[ready] === "true",
    );
    expect(gridOutputs?.data).toEqual({ gridId: grid?.status?.gridId });

    const order = await objects.waitFor("serverorders", "batch", withCondition("Ready"), 30_000);
    const servers = (order?.status?.servers as { address: string }[] | undefined) ?? [];
    expect(servers).toHaveLength(2);
    const orderOutputs = await waitForConfigMap(
      "batch-outputs",
      (c) => c?.metadata?.labels?.[ready] === "true",
    );
    expect(orderOutputs?.data).toEqual({
      orderId: order?.status?.orderId,
      servers: servers.map((s) => s.address).join("\n"),
      count: "2",
    });
  });

  it("after an operator restart the ConfigMap is left as it is: no change its watchers would see", async () => {
    await env.setUp();
    const first = await env.startOperator();
    await objects.create("projects", "demo", { outputs: { configMapName: "demo-outputs" } });
    await objects.waitFor("projects", "demo", withCondition("Ready"));
    const written = await waitForConfigMap("demo-outputs", (c) => c?.metadata?.labels?.[ready] === "true");
    await first.stop();
    const registry = new Registry();
    await env.startOperator({ registry });
    // The new operator reconciles every resource it finds, and again when one changes: each of
    // those reconciles would write a changed value.
    await until(
      async () => (await reconciles(registry, "project")) >= 1,
      "the restarted operator's first reconcile",
    );
    const settled = await reconciles(registry, "project");
    await objects.patch("projects", "demo", { metadata: { annotations: { note: "after restart" } } });
    await reconciledMore(registry, "project", settled);
    const after = await readConfigMap("demo-outputs");
    expect(after?.metadata?.resourceVersion).toBe(written?.metadata?.resourceVersion);
    expect(after?.data).toEqual(written?.data);
  });

  it("without spec.outputs nothing is written", async () => {
    await env.setUp();
    await env.startOperator();
    await objects.create("projects", "plain", {});
    const project = await objects.waitFor("projects", "plain", withCondition("Ready"));
    expect(project?.status?.outputs).toBeUndefined();
    const list = await core.listNamespacedConfigMap({ namespace: env.namespace });
    expect(
      list.items.filter((c) => c.metadata?.labels?.["app.kubernetes.io/managed-by"] === "berth"),
    ).toEqual([]);
  });
});
