import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { kubeconfigPath } from "../support/kube.ts";
import { serviceHttp } from "../support/service-http.ts";
import { type Account, condition, hasCondition, useOperatorEnvironment, withSamples } from "./support.ts";

const run = promisify(execFile);
const source = { provider: "github", repository: "example/web", branch: "main" };

describe("App lifecycle against the simulator", () => {
  // Repository Apps send a source, whose field names the spec doesn't show.
  const env = useOperatorEnvironment(withSamples);

  async function projectAndOperator() {
    const account = await env.setUp();
    await env.startOperator();
    await env.create("projects", "demo", {});
    return account;
  }

  it("runs an image App to Ready with its URL, and kubectl wait sees it", async () => {
    const account = await env.setUp();
    const registry = new Registry();
    await env.startOperator({ registry });
    await env.create("projects", "demo", {});
    await env.create("apps", "hello", {
      projectRef: { name: "demo" },
      image: "nginx:1.27",
      ports: [{ port: 80, protocol: "http80_load_balancer" }],
    });
    const waited = await run(
      "kubectl",
      [
        "--kubeconfig",
        kubeconfigPath(),
        "-n",
        env.namespace,
        "wait",
        "--for=condition=Ready",
        "app.berth.dev/hello",
        "--timeout=30s",
      ],
      { timeout: 40_000 },
    );
    expect(waited.stdout).toContain("condition met");
    const app = await env.get("apps", "hello");
    expect(app?.status?.url).toMatch(/^https:\/\/hello-[0-9a-f]{8}\.apps\.sim\.berth\.dev$/);
    expect(app?.status).toMatchObject({
      state: "running",
      targetState: "running",
      nodes: { ready: 1, total: 1 },
    });
    expect(app?.metadata.finalizers).toContain("berth.dev/finalizer");
    expect(condition(app, "Ready")?.message).toContain(app?.status?.lastRequestId ?? "missing");
    // create + one status read, scheduled for when the app should be running: no tight polling.
    expect(env.requests("createApp")).toHaveLength(1);
    expect(env.requests("getAppStatus").length).toBeLessThanOrEqual(3);
    await env.waitForEvent("hello", "Created");
    await env.waitForEvent("hello", "Ready");
    const metrics = await registry.metrics();
    expect(metrics).toContain('berth_resources{kind="App",condition="Ready"} 1');
    expect(metrics).toContain('berth_time_to_first_ready_seconds_count{kind="App"} 1');
    expect(metrics).toMatch(/berth_hosting_requests_total\{operation="createApp",code="201"\} 1/);
    expect(metrics).not.toContain(account.token);
  });

  it("builds a repository App, following the build, to Ready", async () => {
    await projectAndOperator();
    await env.create("apps", "web", { projectRef: { name: "demo" }, source, ports: [{ port: 8080 }] });
    const app = await env.waitFor("apps", "web", hasCondition("Ready"));
    expect(app?.status?.build).toMatchObject({ id: expect.stringMatching(/^bld_/), state: "succeeded" });
    expect(condition(app, "Built")).toMatchObject({ status: "True" });
    expect(env.requests("getBuild").length).toBeGreaterThanOrEqual(1);
  });

  it("reports a failed build as Stalled BuildFailed with the step, and stops polling", async () => {
    await projectAndOperator();
    env.sim.failNextBuild({ step: "install" });
    await env.create("apps", "broken", { projectRef: { name: "demo" }, source });
    const app = await env.waitFor("apps", "broken", hasCondition("Stalled", "True", "BuildFailed"));
    const message = condition(app, "Stalled")?.message ?? "";
    expect(message).toContain("step install");
    expect(message).toContain(app?.status?.build?.id ?? "missing");
    expect(condition(app, "Ready")).toMatchObject({ status: "False", reason: "BuildFailed" });
    // A later reconcile (its echo is written after its calls) polls the failed build no more.
    const polls = env.requests("getBuild").length;
    await env.patch("apps", "broken", {
      metadata: { annotations: { "berth.dev/reconcile-requested-at": "after-failure" } },
    });
    await env.waitFor("apps", "broken", (a) => a?.status?.lastHandledReconcileAt === "after-failure");
    expect(env.requests("getBuild").length).toBe(polls);
  });

  it("stops and starts the app as spec.stopped says", async () => {
    await projectAndOperator();
    await env.create("apps", "toggle", { projectRef: { name: "demo" }, image: "nginx:1.27" });
    await env.waitFor("apps", "toggle", hasCondition("Ready"));
    await env.patch("apps", "toggle", { spec: { stopped: true } });
    const stopped = await env.waitFor(
      "apps",
      "toggle",
      (a) => a?.status?.state === "stopped" && hasCondition("Ready")(a),
    );
    expect(stopped?.status?.targetState).toBe("stopped");
    await env.patch("apps", "toggle", { spec: { stopped: false } });
    await env.waitFor("apps", "toggle", (a) => a?.status?.state === "running" && hasCondition("Ready")(a));
    expect(env.requests("stopApp")).toHaveLength(1);
    expect(env.requests("startApp")).toHaveLength(1);
  });

  it("deletes: stops, waits until stopped, deletes at the service, then lets the App go", async () => {
    const account = await projectAndOperator();
    await env.create("apps", "doomed", { projectRef: { name: "demo" }, image: "nginx:1.27" });
    const ready = await env.waitFor("apps", "doomed", hasCondition("Ready"));
    await env.remove("apps", "doomed");
    await env.waitFor("apps", "doomed", (a) => a === undefined);
    const calls = env.requests().map((r) => r.operation);
    const stop = calls.indexOf("stopApp");
    const del = calls.indexOf("deleteApp");
    expect(stop).toBeGreaterThanOrEqual(0);
    expect(del).toBeGreaterThan(stop);
    expect(env.requests("deleteApp").map((r) => r.status)).toEqual([204]);
    const projectId = ready?.status?.projectId ?? "";
    const left = await lookupApps(account, projectId, "doomed");
    expect(left).toEqual([]);
  });

  it("Orphan leaves the app running at the service", async () => {
    const account = await projectAndOperator();
    await env.create("apps", "keep", {
      projectRef: { name: "demo" },
      image: "nginx:1.27",
      deletionPolicy: "Orphan",
    });
    const ready = await env.waitFor("apps", "keep", hasCondition("Ready"));
    await env.remove("apps", "keep");
    await env.waitFor("apps", "keep", (a) => a === undefined);
    expect(env.requests("stopApp")).toEqual([]);
    expect(env.requests("deleteApp")).toEqual([]);
    const left = await lookupApps(account, ready?.status?.projectId ?? "", "keep");
    expect(left.map((a) => a.id)).toEqual([ready?.status?.appId]);
  });

  it("adopts an existing app by spec.appId without creating one, and aligns its config", async () => {
    const account = await env.setUp();
    await env.startOperator();
    const service = serviceHttp(env.baseUrl, account.token);
    const projectId = (await service.post<{ id: string }>("/projects", { name: "legacy" })).body.id;
    const created = await service.post<{ id: string }>(`/projects/${projectId}/apps`, {
      name: "old",
      config: { image: "nginx:1.26" },
    });
    const appId = created.body.id;
    await env.create("apps", "adopted", { projectId, appId, displayName: "old", image: "nginx:1.27" });
    const app = await env.waitFor(
      "apps",
      "adopted",
      (a) => a?.status?.observedGeneration === 1 && hasCondition("Ready")(a),
    );
    expect(app?.status?.appId).toBe(appId);
    // The one create is the test's own: the operator adopted the app.
    expect(env.requests("createApp")).toHaveLength(1);
    expect(env.requests("updateApp")).toHaveLength(1);
    const after = await service.get<{ config: { image: string } }>(`/projects/${projectId}/apps/${appId}`);
    expect(after.body.config.image).toBe("nginx:1.27");
  });

  /** Apps of that name in the project, read with the test's own key. */
  async function lookupApps(account: Account, projectId: string, name: string): Promise<{ id: string }[]> {
    return serviceHttp(env.baseUrl, account.token).items<{ id: string }>(
      `/projects/${projectId}/apps?name=${name}`,
    );
  }
});
