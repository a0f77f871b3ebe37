import { type ChildProcess, spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { berthObjects } from "../support/berth-objects.ts";
import { kubeConfig, kubeconfigPath } from "../support/kube.ts";
import { serviceHttp } from "../support/service-http.ts";
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
      child.kill("SIGKILL");
      await exited;
    } finally {
      child.kill("SIGKILL");
    }
    expect(env.sim.spentFaults()).toEqual([expect.objectContaining({ id: held, hits: 1 })]);
    return { service, projectId };
  }
  const made = () => env.requests("createApp").filter((r) => r.status === 201 && !r.replayed);

  it("ends with exactly one app at the service after a restart", async () => {
    const { service, projectId } = await killedDuringCreate(3000);
    const afterKill = await env.get("apps", "web");
    expect(afterKill?.status?.appId).toBeUndefined();
    // The service acts on the create with nobody left to hear the answer.
    await until(() => env.requests("createApp").some((r) => r.status === 201), "the held create answered");

    await withOperator(env.namespace, async () => {
      const app = await env.waitFor("apps", "web", hasCondition("Ready"), 30_000);
      const items = await service.items<{ id: string }>(`/projects/${projectId}/apps?name=web`);
      expect(items.map((i) => i.id)).toEqual([app?.status?.appId]);
      expect(made()).toHaveLength(1);
    });
  });

  // The worst moment and an edit mid-flight: the create is at the service, its outcome unknown to
  // anyone, and the App is deleted while no operator runs. The lookup after the restart finds
  // nothing (the create has not acted yet); only the service's word under the same key may settle it.
  it("killed during its create and deleted meanwhile: the restarted operator deletes what the create made, then releases", {
    timeout: 180_000,
  }, async () => {
    const { service, projectId } = await killedDuringCreate(8000);
    await env.remove("apps", "web");

    await withOperator(env.namespace, async () => {
      await objects.waitForGone("apps", "web", 150_000);
      // The held create acts 8 s after it arrived, whoever waits for it: looked at only after that.
      await until(() => made().length > 0, "the held create answered");
      expect(made()).toHaveLength(1);
      expect(env.requests("deleteApp").filter((r) => r.status < 300)).toHaveLength(1);
      expect(await service.items(`/projects/${projectId}/apps`)).toEqual([]);
    });
  });
});
