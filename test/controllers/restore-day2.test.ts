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
import { approvedOrder, fastPolls, sleep, useOperatorEnvironment } from "./support.ts";

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

  /** An App Ready in project "old", and project "new" ready to move it to. */
  async function appInOldProject() {
    await env.startOperator();
    await env.create("projects", "old", {});
    const to = await env.createdProject("new");
    await env.create("apps", "web", { projectRef: { name: "old" }, image: "nginx:1.27" });
    const web = await objects.waitFor("apps", "web", withCondition("Ready"), 40_000);
    return { web, appId: String(web?.status?.appId), to };
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
    const { appId, to } = await appInOldProject();
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

  const serversOf = (o: BerthObject | undefined) =>
    (o?.status?.servers as { address: string; power?: string }[] | undefined) ?? [];
  const replacementsOf = (o: BerthObject | undefined) =>
    (o?.status?.replacements as unknown[] | undefined) ?? [];

  it("a ServerOrder with a replaced server, restored without status, knows the replacement and deprovisions it on deletion", async () => {
    const account = await env.setUp();
    await env.startOperator();
    await orderOf(1);
    const before = await objects.get("serverorders", "batch");
    const [first] = serversOf(before);
    await objects.patch("serverorders", "batch", {
      metadata: { annotations: { "berth.dev/replace-server": `${first?.address}@ticket-1` } },
    });
    await objects.waitFor(
      "serverorders",
      "batch",
      (o) =>
        listed(1)(o) &&
        replacementsOf(o).length === 1 &&
        !serversOf(o).some((s) => s.address === first?.address),
      60_000,
    );
    const replaced = () => env.requests("replaceServer").filter((r) => r.status < 300 && !r.replayed);
    expect(replaced()).toHaveLength(1);
    await restore("serverorders", "batch");
    const restored = await objects.waitFor("serverorders", "batch", listed(1), 60_000);
    expect(replacementsOf(restored)).toHaveLength(1);
    expect(withCondition("Stalled")(restored)).toBe(false);
    expect(replaced()).toHaveLength(1);
    expect(orders()).toBe(1);
    await objects.remove("serverorders", "batch");
    await objects.waitForGone("serverorders", "batch", 60_000);
    expect(await activeServers(account.token)).toBe(0);
  });

  it("a hibernated ServerOrder restored without status stays hibernated, orders nothing, and leaves nothing on deletion", async () => {
    const account = await env.setUp();
    await env.startOperator();
    await orderOf(2);
    await objects.patch("serverorders", "batch", { spec: { power: "Hibernated" } });
    const hibernated = (o: BerthObject | undefined) =>
      listed(2)(o) && serversOf(o).every((s) => s.power === "Hibernated");
    await objects.waitFor("serverorders", "batch", hibernated, 60_000);
    const powerCalls = env.requests("powerServers").length;
    await restore("serverorders", "batch");
    await objects.waitFor("serverorders", "batch", hibernated, 60_000);
    expect(orders()).toBe(1);
    expect(env.requests("powerServers")).toHaveLength(powerCalls);
    await objects.remove("serverorders", "batch");
    await objects.waitForGone("serverorders", "batch", 60_000);
    expect(await activeServers(account.token)).toBe(0);
  });

  it("a ServerOrder folds the orders whose servers are gone: its annotation stays small, and a restore and a deletion still hold", {
    timeout: 240_000,
  }, async () => {
    const account = await env.setUp();
    // Orders are folded as soon as their servers are gone, not a day later; the simulator's clock
    // runs 20 times faster, so its orders look made in the future.
    const foldOrdersAfterMs = -24 * 3_600_000;
    await env.startOperator({ settings: { polls: fastPolls, stalledRetryMs: 2000, foldOrdersAfterMs } });
    await orderOf(1);
    const count = async (n: number, settled: (o: BerthObject | undefined) => boolean) => {
      await objects.patch("serverorders", "batch", { spec: { count: n } });
      return objects.waitFor("serverorders", "batch", (o) => listed(n)(o) && settled(o), 60_000);
    };
    const growthIds = (o: BerthObject | undefined) =>
      ((o?.status?.growthOrders as { id: string }[] | undefined) ?? []).map((g) => g.id);
    // Grown (g1), lowered (g1's server deprovisioned), grown again (g2): g1 holds nothing.
    const grown = await count(2, (o) => growthIds(o).length === 1);
    const [g1] = growthIds(grown);
    await count(1, (o) => o?.status?.removedCount === 1);
    const folded = { growthOrders: 1, servers: 1 };
    const regrown = await count(2, (o) => JSON.stringify(o?.status?.folded) === JSON.stringify(folded));
    expect(growthIds(regrown)).not.toContain(g1);
    // The first order's server replaced (r1), then r1's server replaced in turn (r2): r1 holds nothing.
    const replacementOrders = (o: BerthObject | undefined) =>
      (replacementsOf(o) as { orderId?: string }[]).map((r) => r.orderId);
    const replace = async (
      address: string | undefined,
      ticket: string,
      settled: (o: BerthObject | undefined) => boolean,
    ) => {
      await objects.patch("serverorders", "batch", {
        metadata: { annotations: { "berth.dev/replace-server": `${address}@${ticket}` } },
      });
      return objects.waitFor("serverorders", "batch", (o) => listed(2)(o) && settled(o), 60_000);
    };
    const firstOrder = String(regrown?.status?.orderId);
    const ofFirst = (
      await serviceHttp(env.baseUrl, account.token).items<{ address: string; orderId: string }>("/servers")
    ).find((s) => s.orderId === firstOrder);
    const once = await replace(ofFirst?.address, "ticket-1", (o) => replacementsOf(o).length === 1);
    const [r1] = replacementOrders(once);
    const successor = (
      await serviceHttp(env.baseUrl, account.token).items<{ address: string; orderId: string }>("/servers")
    ).find((s) => s.orderId === r1);
    const twice = await replace(successor?.address, "ticket-2", (o) => {
      const ids = replacementOrders(o);
      return ids.length === 1 && ids[0] !== r1;
    });
    const owned = twice?.metadata.annotations?.["berth.dev/owned"] ?? "";
    expect(owned).not.toContain(String(g1));
    expect(owned).not.toContain(String(r1));
    expect(JSON.parse(owned)).toMatchObject({ folded });
    const placed = orders();
    const replaced = env.requests("replaceServer").filter((r) => r.status < 300 && !r.replayed).length;
    expect([placed, replaced]).toEqual([3, 2]);
    // Restored without status from the folded annotation: the same count held, nothing ordered.
    await restore("serverorders", "batch");
    const restored = await objects.waitFor("serverorders", "batch", listed(2), 60_000);
    expect(restored?.status?.folded).toEqual(folded);
    expect(withCondition("Stalled")(restored)).toBe(false);
    // A later reconcile (its echo is written after its calls) orders nothing either.
    await objects.patch("serverorders", "batch", {
      metadata: { annotations: { "berth.dev/reconcile-requested-at": "after-restore" } },
    });
    await objects.waitFor(
      "serverorders",
      "batch",
      (o) => o?.status?.lastHandledReconcileAt === "after-restore",
    );
    expect(orders()).toBe(placed);
    expect(await activeServers(account.token)).toBe(2);
    await objects.remove("serverorders", "batch");
    await objects.waitForGone("serverorders", "batch", 60_000);
    expect(await activeServers(account.token)).toBe(0);
  });

  it("an App restored with a spec that moved on (another project) moves its app there: one app, none left after deletion", async () => {
    const account = await env.setUp();
    const service = serviceHttp(env.baseUrl, account.token);
    const { web, appId, to } = await appInOldProject();
    // The backup was taken now; git has since moved the App to project "new".
    const exported = await objects.get("apps", "web");
    if (exported === undefined) throw new Error("apps/web is gone");
    await objects.patch("apps", "web", { spec: { deletionPolicy: "Orphan" } });
    await objects.remove("apps", "web");
    await objects.waitForGone("apps", "web", 30_000);
    const { labels, annotations } = exported.metadata;
    await custom.createNamespacedCustomObject({
      group: "berth.dev",
      version: "v1alpha1",
      plural: "apps",
      namespace: env.namespace,
      body: {
        apiVersion: "berth.dev/v1alpha1",
        kind: "App",
        metadata: { name: "web", labels, annotations },
        spec: { ...exported.spec, projectRef: { name: "new" }, deletionPolicy: "Delete" },
      },
    });
    const moved = await objects.waitFor(
      "apps",
      "web",
      (o) => o?.status?.projectId === to && withCondition("Ready")(o),
      60_000,
    );
    expect(moved?.status?.appId).toBe(appId);
    expect(env.requests("createApp")).toHaveLength(1);
    await objects.remove("apps", "web");
    await objects.waitForGone("apps", "web", 60_000);
    const from = String(web?.status?.projectId);
    expect(await service.items(`/projects/${to}/apps`)).toEqual([]);
    expect(await service.items(`/projects/${from}/apps`)).toEqual([]);
  });

  it("an App restored while its create is still running at the service asks the service again: one app, none after deletion", {
    timeout: 120_000,
  }, async () => {
    const account = await env.setUp();
    const service = serviceHttp(env.baseUrl, account.token);
    await env.startWithShortWrites();
    const home = await env.createdProject("home");
    const fault = env.sim.injectFault({ operation: "createApp", latencyMs: 10_000, times: 1 });
    await env.create("apps", "web", { projectRef: { name: "home" }, image: "nginx:1.27" });
    const held = await env.heldCall(fault, "the create call");
    // The backup carries the Pending create (its key and body) in berth.dev/owned; the UID is new.
    await objects.waitFor("apps", "web", (o) =>
      (o?.metadata.annotations?.["berth.dev/owned"] ?? "").includes("createApp"),
    );
    await restore("apps", "web");
    const web = await objects.waitFor("apps", "web", withCondition("Ready"), 60_000);
    while (Date.now() - held < 11_000) await sleep(200);
    const apps = () => service.items<{ id: string }>(`/projects/${home}/apps`);
    expect(await apps()).toEqual([expect.objectContaining({ id: web?.status?.appId })]);
    expect(env.requests("createApp").filter((r) => r.status === 201 && !r.replayed)).toHaveLength(1);
    await objects.remove("apps", "web");
    await objects.waitForGone("apps", "web", 60_000);
    expect(await apps()).toEqual([]);
  });
});
