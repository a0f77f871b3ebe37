import { type ChildProcess, spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { kubeconfigPath } from "../support/kube.ts";
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

describe("operator killed between the create call and the status write", () => {
  const env = useOperatorEnvironment();

  it("ends with exactly one app at the service after a restart", async () => {
    const account = await env.setUp();
    const service = serviceHttp(env.baseUrl, account.token);
    const projectId = (await service.post<{ id: string }>("/projects", { name: "demo" })).body.id;

    // The simulator holds the create for 3 s (the request is in progress, then acts and answers).
    const held = env.sim.injectFault({ operation: "createApp", latencyMs: 3000, times: 1 });
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
    const afterKill = await env.get("apps", "web");
    expect(afterKill?.status?.appId).toBeUndefined();
    // The service acts on the create with nobody left to hear the answer.
    await until(() => env.requests("createApp").some((r) => r.status === 201), "the held create answered");

    const restarted = operatorProcess(env.namespace);
    try {
      const app = await env.waitFor("apps", "web", hasCondition("Ready"), 30_000);
      const items = await service.items<{ id: string }>(`/projects/${projectId}/apps?name=web`);
      expect(items.map((i) => i.id)).toEqual([app?.status?.appId]);
      expect(env.requests("createApp").filter((r) => r.status === 201 && !r.replayed)).toHaveLength(1);
    } finally {
      restarted.kill("SIGTERM");
      await new Promise((resolve) => restarted.once("exit", resolve));
    }
  });
});
