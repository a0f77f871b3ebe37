import { CustomObjectsApi } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import {
  type BerthObject,
  type BerthPlural,
  berthObjects,
  pending,
  withCondition,
} from "../support/berth-objects.ts";
import { kubeConfig } from "../support/kube.ts";
import { serviceHttp } from "../support/service-http.ts";
import { approvedOrder, useOperatorEnvironment } from "./support.ts";

const kinds = { projects: "Project", apps: "App", grids: "Grid", serverorders: "ServerOrder" } as const;

/**
 * A restore without status (Velero, a migration, `kubectl get -o yaml` re-applied) of a resource
 * that did day-2 work: what it owns beyond its first ID (growth orders, removals, the project its
 * app is in, an intent still Pending) comes back from its annotations before anything acts.
 */
describe("restoring day-2 states without status", () => {
  const env = useOperatorEnvironment();
  const objects = berthObjects(kubeConfig(), () => env.namespace);
  const custom = kubeConfig().makeApiClient(CustomObjectsApi);

  /** Exports the object (metadata names, labels, annotations and spec), deletes it with Orphan, applies the export. */
  async function restore(plural: BerthPlural, name: string): Promise<void> {
    const object = await objects.get(plural, name);
    if (object === undefined) throw new Error(`${plural}/${name} is gone`);
    const { labels, annotations } = object.metadata;
    await objects.patch(plural, name, { spec: { deletionPolicy: "Orphan" } });
    await objects.remove(plural, name);
    await objects.waitForGone(plural, name, 30_000);
    await custom.createNamespacedCustomObject({
      group: "berth.dev",
      version: "v1alpha1",
      plural,
      namespace: env.namespace,
      body: {
        apiVersion: "berth.dev/v1alpha1",
        kind: kinds[plural],
        metadata: { name, labels, annotations },
        spec: { ...object.spec, deletionPolicy: "Delete" },
      },
    });
  }

  const orders = () => env.requests("provisionServers").filter((r) => r.status === 202).length;
  const listed = (count: number) => (o: BerthObject | undefined) =>
    withCondition("Ready")(o) && (o?.status?.servers as unknown[] | undefined)?.length === count;

  async function orderOf(count: number) {
    await objects.create("grids", "pool", {});
    await objects.create("serverorders", "batch", approvedOrder(count, "5"));
    await objects.waitFor("serverorders", "batch", listed(count), 60_000);
  }

  async function activeServers(token: string): Promise<number> {
    const servers = await serviceHttp(env.baseUrl, token).items<{ state?: string }>("/servers");
    return servers.filter((s) => s.state !== "deprovisioned" && s.state !== "deprovisioning").length;
  }

  it("a grown ServerOrder restored without status orders nothing again, and its deletion leaves nothing running", async () => {
    const account = await env.setUp();
    await env.startOperator();
    await orderOf(1);
    await objects.patch("serverorders", "batch", { spec: { count: 2 } });
    await objects.waitFor(
      "serverorders",
      "batch",
      (o) => listed(2)(o) && (o?.status?.growthOrders as unknown[] | undefined)?.length === 1,
      60_000,
    );
    expect(orders()).toBe(2);
    const grown = await objects.get("serverorders", "batch");
    expect(JSON.parse(grown?.metadata.annotations?.["berth.dev/owned"] ?? "{}")).toMatchObject({
      growthOrders: [expect.objectContaining({ count: 1 })],
    });
    await restore("serverorders", "batch");
    const restored = await objects.waitFor("serverorders", "batch", listed(2), 60_000);
    expect(restored?.status?.growthOrders).toHaveLength(1);
    expect(orders()).toBe(2);
    expect(await activeServers(account.token)).toBe(2);
    await objects.remove("serverorders", "batch");
    await objects.waitForGone("serverorders", "batch", 60_000);
    expect(await activeServers(account.token)).toBe(0);
  });

  it("a shrunk ServerOrder restored without status is Ready, not waiting for servers it removed", async () => {
    const account = await env.setUp();
    await env.startOperator();
    await orderOf(2);
    await objects.patch("serverorders", "batch", { spec: { count: 1 } });
    await objects.waitFor(
      "serverorders",
      "batch",
      (o) => listed(1)(o) && o?.status?.removedCount === 1,
      60_000,
    );
    await restore("serverorders", "batch");
    const restored = await objects.waitFor("serverorders", "batch", listed(1), 60_000);
    expect(restored?.status?.removedCount).toBe(1);
    expect(withCondition("Stalled")(restored)).toBe(false);
    expect(orders()).toBe(1);
    expect(await activeServers(account.token)).toBe(1);
  });

  it("an App restored while its move is Pending finds its app in the old project and moves it: one app", async () => {
    const account = await env.setUp();
    const service = serviceHttp(env.baseUrl, account.token);
    await env.startOperator();
    await env.create("projects", "old", {});
    await env.create("projects", "new", {});
    await env.create("apps", "web", { projectRef: { name: "old" }, image: "nginx:1.27" });
    const web = await objects.waitFor("apps", "web", withCondition("Ready"), 40_000);
    const target = await objects.waitFor("projects", "new", withCondition("Ready"));
    const appId = String(web?.status?.appId);
    const to = String(target?.status?.projectId);
    // Every move call fails with a 503 that did nothing: the intent stays Pending.
    env.sim.injectFault({ operation: "moveApp", status: 503 });
    await env.patch("apps", "web", { spec: { projectRef: { name: "new" } } });
    await objects.waitFor(
      "apps",
      "web",
      (o) =>
        pending(o, "moveApp") !== undefined &&
        (o?.metadata.annotations?.["berth.dev/owned"] ?? "").includes('"moveApp"'),
      30_000,
    );
    await restore("apps", "web");
    env.sim.clearFaults();
    const moved = await objects.waitFor(
      "apps",
      "web",
      (o) => o?.status?.projectId === to && withCondition("Ready")(o),
      60_000,
    );
    expect(moved?.status?.appId).toBe(appId);
    expect(env.requests("createApp")).toHaveLength(1);
    expect(await service.items(`/projects/${to}/apps`)).toEqual([expect.objectContaining({ id: appId })]);
  });
});
