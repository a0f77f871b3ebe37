import { describe, expect, it } from "vitest";
import { berthObjects, withCondition } from "../support/berth-objects.ts";
import { kubeConfig } from "../support/kube.ts";
import { serviceHttp } from "../support/service-http.ts";
import { approvedOrder, sleep, useOperatorEnvironment } from "./support.ts";

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
    await env.startWithShortWrites();
    const home = await env.createdProject("home");
    const fault = env.sim.injectFault({ operation: "createApp", latencyMs: 10_000, times: 1 });
    await env.create("apps", "web", { projectRef: { name: "home" }, image: "nginx:1.27" });
    const held = await env.heldCall(fault, "the create call");
    await env.patch("apps", "web", { spec: { image: "nginx:1.28" } });
    const edited = await objects.waitFor(
      "apps",
      "web",
      (o) => withCondition("Ready")(o) && o?.status?.observedGeneration === 2,
      60_000,
    );
    // The held create has answered by now (its latency is over): every app it or a resend made is listed.
    while (Date.now() - held < 11_000) await sleep(200);
    const apps = await service.items<{ id: string; config: { image?: string } }>(`/projects/${home}/apps`);
    expect(apps).toEqual([expect.objectContaining({ id: edited?.status?.appId })]);
    expect(apps[0]?.config.image).toBe("nginx:1.28");
    expect(env.requests("createApp").filter((r) => r.status === 201 && !r.replayed)).toHaveLength(1);
  });
});

describe("editing a ServerOrder while its order call is still running at the service", () => {
  const env = useOperatorEnvironment();
  const objects = berthObjects(kubeConfig(), () => env.namespace);

  it("places one order, not two, and brings it to the edited count", { timeout: 120_000 }, async () => {
    const account = await env.setUp();
    const service = serviceHttp(env.baseUrl, account.token);
    await env.startWithShortWrites();
    await objects.create("grids", "pool", {});
    // The real order (the second provisionServers call, after the dry run) takes 10 s to act.
    const fault = env.sim.injectFault({
      operation: "provisionServers",
      latencyMs: 10_000,
      times: 1,
      skip: 1,
    });
    await objects.create("serverorders", "batch", approvedOrder(2, "5"));
    const held = await env.heldCall(fault, "the order call");
    await objects.patch("serverorders", "batch", { spec: { count: 1 } });
    while (Date.now() - held < 11_000) await sleep(200);
    await objects.waitFor(
      "serverorders",
      "batch",
      (o) => withCondition("Ready")(o) && (o?.status?.servers as unknown[] | undefined)?.length === 1,
      60_000,
    );
    const placed = env.requests("provisionServers").filter((r) => r.status === 202 && !r.replayed);
    expect(placed).toHaveLength(1);
    const servers = await service.items<{ state?: string }>("/servers");
    expect(servers.filter((s) => s.state !== "deprovisioned" && s.state !== "deprovisioning")).toHaveLength(
      1,
    );
  });
});
