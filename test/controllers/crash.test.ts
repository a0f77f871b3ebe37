import { type ChildProcess, spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { annotations } from "../../src/api/meta.ts";
import { type BerthObject, berthObjects, pending } from "../support/berth-objects.ts";
import { kubeConfig, kubeconfigPath } from "../support/kube.ts";
import { serviceHttp } from "../support/service-http.ts";
import { startHoldingProxy } from "./holding-proxy.ts";
import { hasCondition, until, useOperatorEnvironment } from "./support.ts";

/** `berth operator` as its own process, watching one namespace. */
function operatorProcess(namespace: string): ChildProcess {
  return spawn(
    process.execPath,
    [
      "src/main.ts",
      "operator",
      "--kubeconfig",
      kubeconfigPath(),
      "--namespace",
      namespace,
      "--metrics-addr",
      "",
      "--health-addr",
      "",
      "--log-level",
      "warn",
    ],
    { stdio: ["ignore", "ignore", "inherit"] },
  );
}

/** Runs `work` with `berth operator` running as its own process, stopped (SIGTERM) afterwards. */
async function withOperator<T>(namespace: string, work: () => Promise<T>): Promise<T> {
  const operator = operatorProcess(namespace);
  try {
    return await work();
  } finally {
    operator.kill("SIGTERM");
    await new Promise((resolve) => operator.once("exit", resolve));
  }
}

/** The intents the object's `berth.dev/owned` annotation keeps (what a restore without status gets back). */
function ownedIntents(object: BerthObject | undefined): unknown[] {
  const owned = object?.metadata.annotations?.[annotations.owned];
  return owned === undefined ? [] : ((JSON.parse(owned) as { intents?: unknown[] }).intents ?? []);
}

const isAppCreate = (method: string, path: string) =>
  method === "POST" && /\/projects\/[^/]+\/apps$/.test(path);

describe("operator killed between the create call and the status write", () => {
  const env = useOperatorEnvironment();
  const objects = berthObjects(kubeConfig(), () => env.namespace);

  /**
   * An App of a new project created with the operator running, which is killed (SIGKILL) once the
   * create reached the service, where it is held `heldMs` (in progress, then acts and answers).
   */
  async function killedDuringCreate(heldMs: number) {
    const account = await env.setUp();
    const service = serviceHttp(env.baseUrl, account.token);
    const projectId = (await service.post<{ id: string }>("/projects", { name: "demo" })).body.id;
    const held = env.sim.injectFault({ operation: "createApp", latencyMs: heldMs, times: 1 });
    const child = operatorProcess(env.namespace);
    const exited = new Promise((resolve) => child.once("exit", resolve));
    try {
      await env.create("apps", "web", { projectId, image: "nginx:1.27" });
      // Killed only once the create reached the service: the fault is used up when it hits.
      await until(() => env.faultSpent(held), "the create held at the service");
      // The moment: the create arrived (its fault hit) and has neither acted nor answered.
      const createsAtKill = env.requests("createApp");
      child.kill("SIGKILL");
      await exited;
      expect(createsAtKill).toEqual([]);
    } finally {
      child.kill("SIGKILL");
    }
    expect(env.sim.spentFaults()).toEqual([expect.objectContaining({ id: held, hits: 1 })]);
    return { service, projectId, loggedAtKill: env.sim.requests().length };
  }
  const made = () => env.requests("createApp").filter((r) => r.status === 201 && !r.replayed);

  it("ends with exactly one app at the service after a restart", async () => {
    const { service, projectId } = await killedDuringCreate(3000);
    const afterKill = await env.get("apps", "web");
    expect(afterKill?.status?.appId).toBeUndefined();
    // The service acts on the create with nobody left to hear the answer.
    await until(() => env.requests("createApp").some((r) => r.status === 201), "the held create answered");
    // The restart comes after the create acted: everything the new operator asks is logged later.
    const loggedAtRestart = env.sim.requests().length;

    await withOperator(env.namespace, async () => {
      const app = await env.waitFor("apps", "web", hasCondition("Ready"), 30_000);
      const items = await service.items<{ id: string }>(`/projects/${projectId}/apps?name=web`);
      expect(items.map((i) => i.id)).toEqual([app?.status?.appId]);
      expect(made()).toHaveLength(1);
      const asked = env.sim.requests().slice(loggedAtRestart);
      expect(asked.length).toBeGreaterThan(0);
      expect(asked.filter((r) => r.operation === "createApp" && !r.replayed)).toEqual([]);
    });
  });

  // The worst moment and an edit mid-flight: the create is at the service, its outcome unknown to
  // anyone, and the App is deleted while no operator runs. The lookup after the restart finds
  // nothing (the create has not acted yet); only the service's word under the same key may settle it.
  it("killed during its create and deleted meanwhile: the restarted operator deletes what the create made, then releases", {
    timeout: 180_000,
  }, async () => {
    const { service, projectId, loggedAtKill } = await killedDuringCreate(8000);
    await env.remove("apps", "web");

    await withOperator(env.namespace, async () => {
      await objects.waitForGone("apps", "web", 150_000);
      // The held create acts 8 s after it arrived, whoever waits for it: looked at only after that.
      await until(() => made().length > 0, "the held create answered");
      expect(made()).toHaveLength(1);
      // The moment: the restarted operator asked while the create still ran. Its lookup and its
      // create under the same key were answered (the log keeps answer order) before the create acted.
      const sinceKill = env.sim.requests().slice(loggedAtKill);
      const acted = sinceKill.findIndex(
        (r) => r.operation === "createApp" && r.status === 201 && !r.replayed,
      );
      expect(acted).toBeGreaterThanOrEqual(0);
      const before = sinceKill.slice(0, acted).map((r) => `${r.operation} ${r.status}`);
      expect(before).toContain("listApps 200");
      expect(before).toContain("createApp 409");
      expect(env.requests("deleteApp").filter((r) => r.status < 300)).toHaveLength(1);
      expect(await service.items(`/projects/${projectId}/apps`)).toEqual([]);
    });
  });

  // The narrowest moment: the Pending intent is written (status and berth.dev/owned) and the create
  // is on its way, but the service never sees it. A proxy holds the call; the operator dies there.
  it("killed between writing its intent and the call reaching the service: one create after a restart, under the recorded key", async () => {
    const account = await env.setUp();
    const service = serviceHttp(env.baseUrl, account.token);
    const projectId = (await service.post<{ id: string }>("/projects", { name: "demo" })).body.id;
    const proxy = await startHoldingProxy(env.baseUrl);
    try {
      await env.putSecret("berth-credentials", { apiKey: account.token, baseUrl: proxy.baseUrl });
      proxy.hold(isAppCreate);
      const child = operatorProcess(env.namespace);
      const exited = new Promise((resolve) => child.once("exit", resolve));
      let atKill: BerthObject | undefined;
      try {
        await env.create("apps", "web", { projectId, image: "nginx:1.27" });
        await until(() => proxy.held().length > 0, "the create sent");
        atKill = await objects.get("apps", "web");
        // The moment: nothing of the create has reached the service when the operator dies.
        const reachedAtKill = proxy.forwarded().filter((r) => isAppCreate(r.method, r.path));
        child.kill("SIGKILL");
        expect(reachedAtKill).toEqual([]);
        await exited;
      } finally {
        child.kill("SIGKILL");
      }
      const intent = pending(atKill, "createApp");
      expect(intent?.key).toBeDefined();
      // The call held is the one the intent records, and it was recorded before it was sent.
      expect(proxy.held().map((r) => r.idempotencyKey)).toEqual([intent?.key]);
      expect(ownedIntents(atKill)).toContainEqual(
        expect.objectContaining({ operation: "createApp", key: intent?.key, state: "Pending" }),
      );
      expect(atKill?.status?.appId).toBeUndefined();
      expect(env.requests("createApp")).toEqual([]);

      proxy.hold(undefined);
      await withOperator(env.namespace, async () => {
        const app = await env.waitFor("apps", "web", hasCondition("Ready"), 30_000);
        const items = await service.items<{ id: string }>(`/projects/${projectId}/apps`);
        expect(items.map((i) => i.id)).toEqual([app?.status?.appId]);
        expect(env.requests("createApp").map((r) => [r.status, r.replayed])).toEqual([[201, false]]);
        // Sent again under the key the intent recorded: had the first call arrived late, it replays.
        const sent = proxy.forwarded().filter((r) => isAppCreate(r.method, r.path));
        expect(sent.map((r) => r.idempotencyKey)).toEqual([intent?.key]);
      });
    } finally {
      await proxy.close();
    }
  });
});
