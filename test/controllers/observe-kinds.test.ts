import { describe, expect, it } from "vitest";
import { type BerthObject, berthObjects, conditionOf } from "../support/berth-objects.ts";
import { kubeConfig } from "../support/kube.ts";
import { serviceHttp } from "../support/service-http.ts";
import { changingOperations, useOperatorEnvironment } from "./support.ts";

/** A key that reads and changes nothing: no write, admin or spend scope. */
const readOnly = ["projects:read", "apps:read", "pools:read", "billing:read"];
const placement = {
  csp: "native",
  region: "eu-central",
  zone: "eu-central-1a",
  instanceType: "native.small",
};

describe("[Observe] Project, Grid and ServerOrder with a read-only key (calls counted from the simulator's request log)", () => {
  const env = useOperatorEnvironment();
  const objects = berthObjects(kubeConfig(), () => env.namespace);
  const changes = () => changingOperations.map((op) => env.requests(op).length).reduce((a, b) => a + b, 0);

  /** The operator reads with a read-only key; a person made a project, a grid and an order with another key. */
  async function estate() {
    const account = await env.setUp({ scopes: readOnly });
    const person = env.sim.addKey({ userId: account.userId, scopes: ["*"] });
    const service = serviceHttp(env.baseUrl, person.token);
    const projectId = (await service.post<{ id: string }>("/projects", { name: "legacy" })).body.id;
    const gridId = (await service.post<{ id: string }>("/grids", { name: "pool" })).body.id;
    const ordered = await service.post<{ id: string }>("/servers/provision", {
      ...placement,
      count: 1,
      gridIds: [gridId],
      dryRun: false,
    });
    expect(ordered.status).toBe(202);
    return { service, projectId, gridId, orderId: ordered.body.id };
  }

  const reported = (o: BerthObject | undefined) => conditionOf(o, "Ready")?.reason === "DriftNotReverted";

  it("adopt what a person made, make only reads though each spec differs, and report each difference", async () => {
    const { service, projectId, gridId, orderId } = await estate();
    await env.startOperator();
    const observe = { managementPolicies: ["Observe"] };
    await objects.create("projects", "shop", { ...observe, projectId, displayName: "shop" });
    await objects.create("grids", "pool", { ...observe, gridId, displayName: "batch" });
    // The order delivered one server; this spec asks for two (a growth order and its dry run).
    await objects.create("serverorders", "servers", {
      ...observe,
      orderId,
      ...placement,
      gridIds: [gridId],
      count: 2,
    });

    const project = await objects.waitFor("projects", "shop", reported, 30_000);
    const grid = await objects.waitFor("grids", "pool", reported, 30_000);
    const order = await objects.waitFor("serverorders", "servers", reported, 30_000);

    expect(project?.status?.projectId).toBe(projectId);
    expect(conditionOf(project, "Ready")?.message).toContain("name differs");
    expect(grid?.status?.gridId).toBe(gridId);
    expect(conditionOf(grid, "Ready")?.message).toContain("name differs");
    expect(order?.status?.orderId).toBe(orderId);
    expect(order?.status?.servers).toHaveLength(1);
    expect(order?.status?.cost).toBeDefined();
    expect(conditionOf(order, "Ready")?.message).toContain("spec.count");
    for (const [name, resource] of [
      ["shop", project],
      ["pool", grid],
      ["servers", order],
    ] as const) {
      // Reported, not failed: no MissingScopes for calls never made, nothing in flight.
      expect(conditionOf(resource, "Stalled"), name).toBeUndefined();
      expect(conditionOf(resource, "Reconciling"), name).toBeUndefined();
      // Never an owner: no claim, no finalizer.
      expect(resource?.metadata.labels?.["berth.dev/claim"], name).toBeUndefined();
      expect(resource?.metadata.finalizers ?? [], name).toEqual([]);
      expect(await env.eventReasons(name), name).toContain("DriftNotReverted");
    }
    // Only reads: no dry run, no order, no rename; and every call the operator's key made was a GET.
    expect(changes()).toBe(0);
    expect(env.requests().filter((r) => r.method !== "GET")).toEqual([]);
    const atService = await service.get<{ name: string }>(`/projects/${projectId}`);
    expect(atService.body.name).toBe("legacy");

    // Deleting them calls nothing either: the project, grid and server stay.
    await objects.remove("projects", "shop");
    await objects.remove("grids", "pool");
    await objects.remove("serverorders", "servers");
    for (const [plural, name] of [
      ["projects", "shop"],
      ["grids", "pool"],
      ["serverorders", "servers"],
    ] as const)
      await objects.waitForGone(plural, name, 30_000);
    expect(changes()).toBe(0);
    const servers = await service.items<{ state: string }>(`/servers?orderId=${orderId}`);
    expect(servers.map((s) => s.state)).toEqual(["running"]);
  });

  it('the same specs under ["*"] with that key are Stalled MissingScopes, and still make no changing call', async () => {
    const { projectId, orderId, gridId } = await estate();
    await env.startOperator();
    await objects.create("projects", "shop", { projectId, displayName: "shop" });
    await objects.create("serverorders", "servers", { orderId, ...placement, gridIds: [gridId], count: 2 });
    const stalled = (o: BerthObject | undefined) => conditionOf(o, "Stalled")?.reason === "MissingScopes";
    const project = await objects.waitFor("projects", "shop", stalled, 30_000);
    const order = await objects.waitFor("serverorders", "servers", stalled, 30_000);
    expect(conditionOf(project, "Stalled")?.message).toContain("projects:write");
    expect(conditionOf(order, "Stalled")?.message).toContain("pools:write");
    // Managing, unlike [Observe]: the adopted order is claimed by its spec.orderId, as other spec IDs are.
    expect(order?.metadata.labels?.["berth.dev/claim"]).toBeDefined();
    expect(order?.metadata.annotations?.["berth.dev/external-id"]).toBe(orderId);
    expect(changes()).toBe(0);
  });
});
