import { describe, expect, it } from "vitest";
import { berthObjects } from "../support/berth-objects.ts";
import { kubeConfig } from "../support/kube.ts";
import { serviceHttp } from "../support/service-http.ts";
import { approvedOrder, fastPolls, sleep, useOperatorEnvironment } from "./support.ts";

/**
 * An order the service is still working on when the client gives up, and the ServerOrder deleted
 * then: the lookup finds no order yet, so berth asks the service itself, sending the call again
 * under its key, and releases only once the answer (in progress, then the order) is cleaned up.
 */
describe("deleting a ServerOrder while its order call is still running at the service", () => {
  const env = useOperatorEnvironment();
  const objects = berthObjects(kubeConfig(), () => env.namespace);

  // The calls answered "in progress" back off as failures do: the deletion may take a minute or two.
  it("waits for the service's answer and deprovisions what the order made: nothing left running", {
    timeout: 180_000,
  }, async () => {
    const account = await env.setUp();
    const service = serviceHttp(env.baseUrl, account.token);
    // Writes time out after 1.5 s (the client's 30 s, scaled down); the order takes 4 s to act.
    await env.startOperator({
      hosting: { timeoutsMs: { write: 1500 } },
      settings: { polls: fastPolls, stalledRetryMs: 2000 },
    });
    await objects.create("grids", "pool", {});
    const fault = env.sim.injectFault({ operation: "provisionServers", latencyMs: 4000, times: 1, skip: 1 });
    await objects.create("serverorders", "batch", approvedOrder(1));
    // The real order (the second provisionServers call, after the dry run) is held at the service.
    const held = Date.now();
    while (!env.faultSpent(fault)) {
      if (Date.now() - held > 30_000) throw new Error("the order call never reached the service");
      await sleep(50);
    }
    await objects.remove("serverorders", "batch");
    await objects.waitForGone("serverorders", "batch", 150_000);
    // The held order acted (its servers were made), and they went with the ServerOrder.
    const placed = env.requests("provisionServers").filter((r) => r.status === 202 && !r.replayed);
    expect(placed).toHaveLength(1);
    expect(env.requests("deprovisionServers").filter((r) => r.status < 300).length).toBeGreaterThan(0);
    const servers = await service.items<{ state?: string }>("/servers");
    expect(servers.filter((s) => s.state !== "deprovisioned" && s.state !== "deprovisioning")).toEqual([]);
  });
});
