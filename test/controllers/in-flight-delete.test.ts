import { describe, expect, it } from "vitest";
import { berthObjects } from "../support/berth-objects.ts";
import { kubeConfig } from "../support/kube.ts";
import { serviceHttp } from "../support/service-http.ts";
import { approvedOrder, sleep, useOperatorEnvironment } from "./support.ts";

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
    await env.startWithShortWrites();
    await objects.create("grids", "pool", {});
    const fault = env.sim.injectFault({ operation: "provisionServers", latencyMs: 4000, times: 1, skip: 1 });
    await objects.create("serverorders", "batch", approvedOrder(1));
    // The real order (the second provisionServers call, after the dry run) is held at the service.
    await env.heldCall(fault, "the order call");
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

/**
 * The same for the creates of an App and a Grid: the lookup by name finds nothing while the
 * service still works on the create, so the deletion sends the create again under its key and
 * deletes what the service's answer names.
 */
describe("deleting an App or a Grid while its create call is still running at the service", () => {
  const env = useOperatorEnvironment();
  const objects = berthObjects(kubeConfig(), () => env.namespace);

  /** The create takes 4 s to act; the resource is deleted once the call reached the service. */
  async function deleteDuringCreate(
    operation: string,
    plural: "apps" | "grids",
    spec: Record<string, unknown>,
  ) {
    const fault = env.sim.injectFault({ operation, latencyMs: 4000, times: 1 });
    await objects.create(plural, "held", spec);
    const held = await env.heldCall(fault, `the ${operation} call`);
    await objects.remove(plural, "held");
    await objects.waitForGone(plural, "held", 150_000);
    // The held create acted once (its answer may come after a release that did not wait for it);
    // asking again replayed it (or found it running), never made another.
    const made = () => env.requests(operation).filter((r) => r.status === 201 && !r.replayed);
    while (made().length === 0 && Date.now() - held < 60_000) await sleep(100);
    expect(made()).toHaveLength(1);
  }

  it("an App: its app, made by the held create, is deleted before the App is released", {
    timeout: 180_000,
  }, async () => {
    const account = await env.setUp();
    const service = serviceHttp(env.baseUrl, account.token);
    await env.startWithShortWrites();
    const home = await env.createdProject("home");
    await deleteDuringCreate("createApp", "apps", { projectRef: { name: "home" }, image: "nginx:1.27" });
    expect(env.requests("deleteApp").filter((r) => r.status < 300)).toHaveLength(1);
    expect(await service.items(`/projects/${home}/apps`)).toEqual([]);
  });

  it("a Grid: its grid, made by the held create, is deleted before the Grid is released", {
    timeout: 180_000,
  }, async () => {
    const account = await env.setUp();
    const service = serviceHttp(env.baseUrl, account.token);
    await env.startWithShortWrites();
    await deleteDuringCreate("createGrid", "grids", {});
    expect(env.requests("deleteGrid").filter((r) => r.status < 300)).toHaveLength(1);
    expect(await service.items("/grids")).toEqual([]);
  });
});
