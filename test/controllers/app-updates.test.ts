import { Registry } from "prom-client";
import { afterEach, describe, expect, it } from "vitest";
import { startRecordingProxy } from "./recording-proxy.ts";
import {
  hasCondition,
  reconciledMore,
  reconciles,
  until,
  useOperatorEnvironment,
  withSamples,
} from "./support.ts";

describe("App updates", () => {
  const env = useOperatorEnvironment(withSamples);
  let proxy: Awaited<ReturnType<typeof startRecordingProxy>> | undefined;

  afterEach(async () => {
    await proxy?.close();
    proxy = undefined;
  });

  /** Credentials point at a recording proxy, so the test sees every body the operator sends. */
  async function setUpRecorded() {
    const account = await env.setUp();
    proxy = await startRecordingProxy(env.baseUrl);
    await env.putSecret("berth-credentials", { apiKey: account.token, baseUrl: proxy.baseUrl });
    await env.startOperator();
    await env.create("projects", "demo", {});
    return proxy;
  }

  const patches = () =>
    (proxy?.recorded ?? []).filter((r) => r.method === "PATCH" && r.path.includes("/apps/"));

  it("sends one PATCH with only the changed parts for a change of ports, env and instances", async () => {
    const recorded = await setUpRecorded();
    await env.putSecret("db", { url: "postgres://one" });
    await env.create("apps", "web", {
      projectRef: { name: "demo" },
      image: "nginx:1.27",
      ports: [{ port: 80, protocol: "http80_load_balancer" }],
      instances: { min: 1, max: 2 },
      hardware: { cpu: 1 },
      env: [
        { name: "MODE", value: "prod" },
        { name: "DB", valueFrom: { secretKeyRef: { name: "db", key: "url" } } },
      ],
    });
    const before = await env.waitFor("apps", "web", hasCondition("Ready"));
    await env.patch("apps", "web", {
      spec: {
        ports: [{ port: 8080, protocol: "http80_load_balancer" }],
        instances: { min: 2, max: 3 },
        env: [
          { name: "MODE", value: "staging" },
          { name: "DB", valueFrom: { secretKeyRef: { name: "db", key: "url" } } },
        ],
      },
    });
    await env.waitFor("apps", "web", (a) => a?.status?.observedGeneration === 2 && hasCondition("Ready")(a));
    expect(patches()).toHaveLength(1);
    expect(patches()[0]?.body).toEqual({
      config: {
        ports: [{ port: 8080, protocol: "http80_load_balancer" }],
        instances: { min: 2, max: 3 },
        env: [
          { name: "MODE", value: "staging", secret: false },
          { name: "DB", value: null, secret: true },
        ],
      },
    });
    expect(env.requests("updateApp")).toHaveLength(1);
    const after = await env.get("apps", "web");
    expect(after?.status?.appId).toBe(before?.status?.appId);
    expect(after?.status?.endpoints?.map((e) => e.port)).toEqual([8080]);
    expect(JSON.stringify(after?.status)).not.toContain("postgres://one");
    expect(recorded.recorded.some((r) => r.method === "GET" && r.path.endsWith("/me"))).toBe(true);
  });

  it("sends a rotated secret value once, and never writes it to status", async () => {
    await setUpRecorded();
    await env.putSecret("db", { url: "postgres://one" });
    await env.create("apps", "web", {
      projectRef: { name: "demo" },
      image: "nginx:1.27",
      env: [{ name: "DB", valueFrom: { secretKeyRef: { name: "db", key: "url" } } }],
    });
    const before = await env.waitFor("apps", "web", hasCondition("Ready"));
    const digest = before?.status?.secretDigest;
    expect(digest).toMatch(/^DB:[0-9a-f]{16}$/);
    await env.putSecret("db", { url: "postgres://two" });
    await env.waitFor("apps", "web", (a) => a?.status?.secretDigest !== digest);
    // A later reconcile with the same value sends it no more (its echo is written after its calls).
    await env.patch("apps", "web", {
      metadata: { annotations: { "berth.dev/reconcile-requested-at": "after-rotation" } },
    });
    await env.waitFor("apps", "web", (a) => a?.status?.lastHandledReconcileAt === "after-rotation");
    expect(patches().map((p) => p.body)).toEqual([
      { config: { env: [{ name: "DB", value: "postgres://two", secret: true }] } },
    ]);
    const after = await env.get("apps", "web");
    expect(JSON.stringify(after?.status)).not.toContain("postgres://");
  });

  it("restarts exactly once per restart annotation value, through later reconciles too", async () => {
    await env.setUp();
    await env.startOperator();
    await env.create("projects", "demo", {});
    await env.create("apps", "web", { projectRef: { name: "demo" }, image: "nginx:1.27" });
    await env.waitFor("apps", "web", hasCondition("Ready"));
    await env.patch("apps", "web", {
      metadata: { annotations: { "berth.dev/restart-requested-at": "2030-01-01T10:00:00Z" } },
    });
    await env.waitFor("apps", "web", (a) => a?.status?.lastHandledRestartAt === "2030-01-01T10:00:00Z");
    await until(() => env.requests("restartApp").length === 1);
    // More reconciles of the same annotation value (a reconcile request, a spec change) restart nothing.
    await env.patch("apps", "web", {
      metadata: { annotations: { "berth.dev/reconcile-requested-at": "r1" } },
    });
    await env.waitFor("apps", "web", (a) => a?.status?.lastHandledReconcileAt === "r1");
    await env.patch("apps", "web", { spec: { instances: { min: 1, max: 2 } } });
    await env.waitFor("apps", "web", (a) => a?.status?.observedGeneration === 2 && hasCondition("Ready")(a));
    expect(env.requests("restartApp")).toHaveLength(1);
    await env.waitForEvent("web", "Restarted");
  });
});

describe("App inputs that pass the CRD schema never wedge it", () => {
  const env = useOperatorEnvironment(withSamples);
  /** Drift checks of the App so far: each reads the app. */
  const appReads = () => env.requests("getApp").length;

  it("a displayName with a trailing newline (YAML block scalar) sends no PATCH loop", async () => {
    await env.setUp();
    await env.startOperator({}, "1s");
    await env.create("projects", "demo", {});
    await env.create("apps", "web", {
      projectRef: { name: "demo" },
      displayName: "web app\n",
      image: "nginx:1.27",
    });
    await env.waitFor("apps", "web", hasCondition("Ready"));
    // Drift checks every second, four of them: the service's trimmed name is no change.
    const checked = appReads();
    await until(() => appReads() >= checked + 4, "four drift checks", 30_000);
    expect(env.requests("updateApp").length).toBeLessThanOrEqual(2);
    expect(env.requests("createApp").map((r) => r.status)).toEqual([201]);
  });

  it("drift reads that find nothing new write no status (an idle operator is idle)", async () => {
    await env.setUp();
    await env.startOperator({}, "1s");
    await env.create("projects", "demo", {});
    await env.create("apps", "web", { projectRef: { name: "demo" }, image: "nginx:1.27" });
    await env.waitFor("apps", "web", hasCondition("Ready"));
    // Settled: two drift checks after Ready have come and gone.
    const ready = appReads();
    await until(() => appReads() >= ready + 2, "two drift checks", 30_000);
    const settled = (await env.get("apps", "web"))?.metadata.resourceVersion;
    const reads = appReads();
    await until(() => appReads() >= reads + 3, "three more drift checks", 30_000);
    expect((await env.get("apps", "web"))?.metadata.resourceVersion).toBe(settled);
  });

  it("a reconcile annotation too long for status is echoed as a digest: status stays writable", async () => {
    await env.setUp();
    await env.startOperator();
    await env.create("projects", "demo", {});
    await env.create("apps", "web", { projectRef: { name: "demo" }, image: "nginx:1.27" });
    await env.waitFor("apps", "web", hasCondition("Ready"));
    await env.patch("apps", "web", {
      metadata: { annotations: { "berth.dev/reconcile-requested-at": "x".repeat(300) } },
    });
    await env.waitFor("apps", "web", (a) => /^sha256:/.test(a?.status?.lastHandledReconcileAt ?? ""));
    await env.patch("apps", "web", { spec: { instances: { min: 1, max: 2 } } });
    await env.waitFor("apps", "web", (a) => a?.status?.observedGeneration === 2 && hasCondition("Ready")(a));
  });
});

describe("App drift and suspend", () => {
  const env = useOperatorEnvironment(withSamples);

  it("reverts a change made outside berth at the next drift check, with a DriftReverted event", async () => {
    const account = await env.setUp();
    await env.startOperator({}, "1s");
    await env.create("projects", "demo", {});
    await env.create("apps", "web", {
      projectRef: { name: "demo" },
      image: "nginx:1.27",
      ports: [{ port: 80, protocol: "http80_load_balancer" }],
    });
    const app = await env.waitFor("apps", "web", hasCondition("Ready"));
    const url = `${env.baseUrl}/projects/${app?.status?.projectId}/apps/${app?.status?.appId}`;
    const headers = { authorization: `Bearer ${account.token}`, "content-type": "application/json" };
    const changed = await fetch(url, {
      method: "PATCH",
      headers,
      body: JSON.stringify({ config: { ports: [{ port: 9090, protocol: "tcp" }] } }),
    });
    expect(changed.status).toBe(200);
    await until(() => env.requests("updateApp").length === 2);
    const config = (await (await fetch(url, { headers })).json()) as { config: { ports: unknown[] } };
    expect(config.config.ports).toEqual([{ port: 80, protocol: "http80_load_balancer" }]);
    await env.waitForEvent("web", "DriftReverted");
  });

  it("suspended: the service is not called, yet deletion still stops and deletes", async () => {
    await env.setUp();
    const registry = new Registry();
    await env.startOperator({ registry });
    await env.create("projects", "demo", {});
    await env.create("apps", "web", { projectRef: { name: "demo" }, image: "nginx:1.27" });
    await env.waitFor("apps", "web", hasCondition("Ready"));
    await env.patch("apps", "web", { spec: { suspend: true, stopped: true } });
    await env.waitFor("apps", "web", hasCondition("Ready", "False", "Suspended"));
    const calls = env.requests().length;
    // A person's edit wakes a reconcile of the suspended App: it calls nothing.
    const before = await reconciles(registry, "app");
    await env.patch("apps", "web", { metadata: { labels: { touched: "yes" } } });
    await reconciledMore(registry, "app", before);
    expect(env.requests().length).toBe(calls);
    await env.remove("apps", "web");
    await env.waitFor("apps", "web", (a) => a === undefined);
    expect(env.requests("stopApp")).toHaveLength(1);
    expect(env.requests("deleteApp").map((r) => r.status)).toEqual([204]);
  });
});
