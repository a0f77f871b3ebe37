import { describe, expect, it } from "vitest";
import { berthObjects, withCondition } from "../support/berth-objects.ts";
import { kubeConfig } from "../support/kube.ts";
import { serviceHttp } from "../support/service-http.ts";
import { fastPolls, sleep, useOperatorEnvironment } from "./support.ts";

/**
 * A person edits an App while its create is still running at the service (the client gave up on
 * it): the lookup finds nothing yet, and the next create is the same call again, under its key and
 * with the body it first sent, so the service answers for the first; the edit follows once the app
 * is known. One app, with the edited spec.
 */
describe("editing an App while its create call is still running at the service", () => {
  const env = useOperatorEnvironment();
  const objects = berthObjects(kubeConfig(), () => env.namespace);

  it("makes one app, not two, and brings it to the edited spec", { timeout: 120_000 }, async () => {
    const account = await env.setUp();
    const service = serviceHttp(env.baseUrl, account.token);
    // Writes time out after 1.5 s (the client's 30 s, scaled down); the create takes 10 s to act.
    await env.startOperator({
      hosting: { timeoutsMs: { write: 1500 } },
      settings: { polls: fastPolls, stalledRetryMs: 2000 },
    });
    await env.create("projects", "home", {});
    const home = await objects.waitFor("projects", "home", (o) => o?.status?.projectId !== undefined, 40_000);
    const fault = env.sim.injectFault({ operation: "createApp", latencyMs: 10_000, times: 1 });
    await env.create("apps", "web", { projectRef: { name: "home" }, image: "nginx:1.27" });
    const held = Date.now();
    while (!env.faultSpent(fault)) {
      if (Date.now() - held > 30_000) throw new Error("the create call never reached the service");
      await sleep(50);
    }
    await env.patch("apps", "web", { spec: { image: "nginx:1.28" } });
    const edited = await objects.waitFor(
      "apps",
      "web",
      (o) => withCondition("Ready")(o) && o?.status?.observedGeneration === 2,
      60_000,
    );
    // The held create has answered by now (its latency is over): every app it or a resend made is listed.
    while (Date.now() - held < 11_000) await sleep(200);
    const apps = await service.items<{ id: string; config: { image?: string } }>(
      `/projects/${String(home?.status?.projectId)}/apps`,
    );
    expect(apps).toEqual([expect.objectContaining({ id: edited?.status?.appId })]);
    expect(apps[0]?.config.image).toBe("nginx:1.28");
    expect(env.requests("createApp").filter((r) => r.status === 201 && !r.replayed)).toHaveLength(1);
  });
});
