import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { berthObjects, conditionOf, pending, withCondition } from "../support/berth-objects.ts";
import { kubeConfig } from "../support/kube.ts";
import { serviceHttp } from "../support/service-http.ts";
import { hasCondition, reconciledMore, reconciles, until, useOperatorEnvironment } from "./support.ts";

/**
 * The day-2 paths when a call's answer is lost and a person then edits or deletes the resource:
 * each call that spends or releases is an intent, settled by a lookup on its own input first.
 */

interface ServiceServer {
  address: string;
  orderId: string;
  state: string;
}

const leaving = new Set(["deprovisioning", "retiring", "deprovisioned", "retired"]);
const order = { csp: "native", region: "eu-central", zone: "eu-central-1a", instanceType: "native.small" };
const approved = { approved: true, maxHourlyCost: "5" };

describe("an App's move whose answer was lost", () => {
  const env = useOperatorEnvironment();
  const image = { image: "nginx:1.27", ports: [{ port: 80, protocol: "http80_load_balancer" }] };

  async function appIn(service: ReturnType<typeof serviceHttp>) {
    for (const name of ["a", "b", "c"]) await env.create("projects", name, {});
    await env.create("apps", "web", { projectRef: { name: "a" }, ...image });
    const ready = await env.waitFor("apps", "web", hasCondition("Ready"));
    const ids: Record<string, string> = {};
    for (const name of ["a", "b", "c"]) {
      const project = await env.waitFor("projects", name, (p) => p?.status?.projectId !== undefined);
      ids[name] = project?.status?.projectId ?? "";
    }
    const appsIn = async (name: string) => service.items<{ id: string }>(`/projects/${ids[name]}/apps`);
    return { appId: ready?.status?.appId ?? "", ids, appsIn };
  }

  /** The move to b acts and its answer is lost; every read of the app after it fails until faults are cleared. */
  async function loseMoveToB(appsIn: (name: string) => Promise<{ id: string }[]>, keyId: string) {
    env.sim.injectFault({ operation: "moveApp", dropResponse: true, latencyMs: 1500, times: 1 });
    await env.patch("apps", "web", { spec: { projectRef: { name: "b" } } });
    // The intent is in status before the call leaves: reads fail from here on.
    await env.waitFor("apps", "web", (a) => pending(a, "moveApp") !== undefined);
    env.sim.injectFault({ operation: "getApp", status: 503, keyId });
    env.sim.injectFault({ operation: "getAppStatus", status: 503, keyId });
    await until(async () => (await appsIn("b")).length === 1, "the move to act");
  }

  /** Reads of the app the service refused (the faults above): the operator still can't tell. */
  const failedReads = () =>
    env
      .requests()
      .filter((r) => r.status === 503 && (r.operation === "getApp" || r.operation === "getAppStatus")).length;

  /** Waits until a read of the app failed after `edit`: the operator met the edit while it couldn't tell. */
  async function editedWhileUnknown(edit: () => Promise<unknown>) {
    const failed = failedReads();
    await edit();
    await until(() => failedReads() > failed, "a read of the app after the edit");
  }

  it("then retargeted to a third project: settled in b first, moved on to c, one app", async () => {
    const account = await env.setUp();
    const service = serviceHttp(env.baseUrl, account.token);
    await env.startOperator();
    const { appId, ids, appsIn } = await appIn(service);
    await loseMoveToB(appsIn, account.keyId);
    await editedWhileUnknown(() => env.patch("apps", "web", { spec: { projectRef: { name: "c" } } }));
    env.sim.clearFaults();
    const moved = await env.waitFor(
      "apps",
      "web",
      (a) => a?.status?.projectId === ids.c && hasCondition("Ready")(a),
      30_000,
    );
    expect(moved?.status?.appId).toBe(appId);
    expect(await appsIn("c")).toEqual([expect.objectContaining({ id: appId })]);
    expect([...(await appsIn("a")), ...(await appsIn("b"))]).toEqual([]);
    expect(env.requests("createApp")).toHaveLength(1);
    expect(moved?.status?.intents ?? []).toEqual([]);
  });

  it("then deleted: settled in b, stopped and deleted there, nothing left running", async () => {
    const account = await env.setUp();
    const service = serviceHttp(env.baseUrl, account.token);
    await env.startOperator();
    const { appsIn } = await appIn(service);
    await loseMoveToB(appsIn, account.keyId);
    await editedWhileUnknown(() => env.remove("apps", "web"));
    env.sim.clearFaults();
    await env.waitFor("apps", "web", (a) => a === undefined, 30_000);
    expect([...(await appsIn("a")), ...(await appsIn("b")), ...(await appsIn("c"))]).toEqual([]);
  });

  it("found in neither project: Stalled IntentUnsettled naming the move, and nothing created", async () => {
    const account = await env.setUp();
    const service = serviceHttp(env.baseUrl, account.token);
    await env.startOperator();
    const { appId, ids, appsIn } = await appIn(service);
    await loseMoveToB(appsIn, account.keyId);
    // Someone deletes the app at the service (with a key of their own) while berth can't tell where it went.
    const person = serviceHttp(env.baseUrl, env.sim.addKey({ userId: account.userId }).token);
    await person.post(`/projects/${ids.b}/apps/${appId}/stop`, {});
    await until(async () => {
      const read = await person.get<{ state: string }>(`/projects/${ids.b}/apps/${appId}/status`);
      return read.body.state === "stopped";
    }, "the app to stop");
    await person.delete(`/projects/${ids.b}/apps/${appId}`);
    env.sim.clearFaults();

    const stuck = await env.waitFor(
      "apps",
      "web",
      hasCondition("Stalled", "True", "IntentUnsettled"),
      30_000,
    );
    expect(conditionOf(stuck, "Stalled")?.message).toContain("moveApp");
    expect(conditionOf(stuck, "Stalled")?.message).toContain(`neither project ${ids.a} nor ${ids.b}`);
    expect(env.requests("createApp")).toHaveLength(1);
  });
});

describe("a ServerOrder's day-2 calls whose answers were lost", () => {
  const env = useOperatorEnvironment();
  const objects = berthObjects(kubeConfig(), () => env.namespace);

  /** A reconcile asked for and echoed: its calls were made before the echo was written. */
  async function reconciledAgain(token: string) {
    const key = "berth.dev/reconcile-requested-at";
    await objects.patch("serverorders", "batch", { metadata: { annotations: { [key]: token } } });
    await objects.waitFor("serverorders", "batch", (o) => o?.status?.lastHandledReconcileAt === token);
  }

  /** Waits until an order lookup failed after `edit`: the operator met the edit while it couldn't tell. */
  async function lookupFailedAfter(edit: () => Promise<unknown>) {
    const failed = () => env.requests("listOrders").filter((r) => r.status === 503).length;
    const before = failed();
    await edit();
    await until(() => failed() > before, "an order lookup after the edit");
  }

  /**
   * Waits for `count` more reconciles of the stalled ServerOrder, the retries: they come paced
   * (2 s apart here), never at once. How many there were by then.
   */
  async function stalledRetries(registry: Registry, count: number): Promise<number> {
    const from = await reconciles(registry, "serverorder");
    const stalledAt = Date.now();
    await reconciledMore(registry, "serverorder", from, count);
    // A lower bound only (a slow machine makes it longer): a hot retry would take milliseconds.
    expect(Date.now() - stalledAt).toBeGreaterThanOrEqual(1500);
    return (await reconciles(registry, "serverorder")) - from;
  }

  async function readyOrder(spec: Record<string, unknown>, key: { balance?: number } = {}) {
    const account = await env.setUp(key);
    const service = serviceHttp(env.baseUrl, account.token);
    const registry = new Registry();
    await env.startOperator({ registry });
    await objects.create("serverorders", "batch", { ...order, count: 1, ...approved, ...spec });
    await objects.waitFor("serverorders", "batch", withCondition("Ready"), 30_000);
    const live = async () =>
      (await service.items<ServiceServer>("/servers")).filter((s) => !leaving.has(s.state));
    const orders = async () => service.items<{ id: string; count?: number }>("/servers/orders");
    return { account, service, live, orders, registry };
  }

  it("a replacement whose answer and idempotency record were lost is found, shown, and deprovisioned on deletion", async () => {
    const { live } = await readyOrder({});
    const [old] = await live();
    env.sim.injectFault({
      operation: "replaceServer",
      dropResponse: true,
      forgetIdempotency: true,
      times: 1,
    });
    await objects.patch("serverorders", "batch", {
      metadata: { annotations: { "berth.dev/replace-server": `${old?.address}@t1` } },
    });
    const replaced = await objects.waitFor(
      "serverorders",
      "batch",
      (o) =>
        (o?.status?.replacements as unknown[] | undefined)?.length === 1 &&
        withCondition("Ready")(o) &&
        !((o?.status?.servers ?? []) as { address: string }[]).some((s) => s.address === old?.address),
      30_000,
    );
    const servers = ((replaced?.status?.servers ?? []) as { address: string }[]).map((s) => s.address);
    expect(servers).toEqual((await live()).map((s) => s.address));
    expect(servers).toHaveLength(1);
    expect(env.requests("replaceServer").filter((r) => r.status === 202)).toHaveLength(1);
    await objects.remove("serverorders", "batch");
    await objects.waitFor("serverorders", "batch", (o) => o === undefined, 30_000);
    expect(await live()).toEqual([]);
  });

  it("a lost growth order, then a grid removed from spec.gridIds: the order is found on the intent's grids, count servers", async () => {
    const account = await env.setUp();
    const service = serviceHttp(env.baseUrl, account.token);
    const grid = async (name: string) => (await service.post<{ id: string }>("/grids", { name })).body.id;
    const gridIds = [await grid("g1"), await grid("g2")];
    await env.startOperator();
    await objects.create("serverorders", "batch", { ...order, count: 1, ...approved, gridIds });
    await objects.waitFor("serverorders", "batch", withCondition("Ready"), 30_000);
    // The growth order acts and its answer is lost; the lookup fails until the spec has changed.
    env.sim.injectFault({
      operation: "provisionServers",
      dropResponse: true,
      forgetIdempotency: true,
      skip: 1,
      times: 1,
    });
    env.sim.injectFault({ operation: "listOrders", status: 503 });
    await objects.patch("serverorders", "batch", { spec: { count: 2 } });
    await objects.waitFor("serverorders", "batch", (o) => pending(o, "growServers") !== undefined, 30_000);
    await lookupFailedAfter(() =>
      objects.patch("serverorders", "batch", { spec: { gridIds: gridIds.slice(0, 1) } }),
    );
    env.sim.clearFaults();
    const settled = await objects.waitFor(
      "serverorders",
      "batch",
      (o) => withCondition("Ready")(o) && (o?.status?.servers as unknown[] | undefined)?.length === 2,
      30_000,
    );
    expect(settled?.status?.growthOrders).toHaveLength(1);
    const live = (await service.items<ServiceServer>("/servers")).filter((s) => !leaving.has(s.state));
    expect(live).toHaveLength(2);
    expect(await service.items("/servers/orders")).toHaveLength(2);
  });

  it("a growth call that failed without acting, then approval withdrawn: no order is placed", async () => {
    const { live, orders } = await readyOrder({});
    env.sim.injectFault({ operation: "provisionServers", status: 503, skip: 1 });
    await objects.patch("serverorders", "batch", { spec: { count: 3 } });
    await objects.waitFor("serverorders", "batch", (o) => pending(o, "growServers") !== undefined, 30_000);
    await objects.patch("serverorders", "batch", { spec: { approved: false } });
    // Decided while every growth call would still fail: the lookup found nothing, approval is gone.
    const waiting = await objects.waitFor(
      "serverorders",
      "batch",
      (o) => conditionOf(o, "Ready")?.reason === "AwaitingApproval",
      30_000,
    );
    env.sim.clearFaults();
    expect(waiting?.status?.intents).toEqual([
      expect.objectContaining({ operation: "growServers", state: "NotFound" }),
    ]);
    // A later reconcile, with the faults gone, places nothing either.
    await reconciledAgain("after-withdrawal");
    expect(await orders()).toHaveLength(1);
    expect(await live()).toHaveLength(1);
  });

  it("credentials rotated to another user's key while an order's outcome is unknown: Stalled CredentialsChanged, no second order", async () => {
    const account = await env.setUp();
    const service = serviceHttp(env.baseUrl, account.token);
    const registry = new Registry();
    await env.startOperator({ registry });
    await objects.create("serverorders", "batch", { ...order, count: 1 });
    await objects.waitFor(
      "serverorders",
      "batch",
      withCondition("Ordered", "False", "AwaitingApproval"),
      30_000,
    );
    env.sim.injectFault({
      operation: "provisionServers",
      dropResponse: true,
      forgetIdempotency: true,
      skip: 1,
      times: 1,
    });
    env.sim.injectFault({ operation: "listOrders", status: 503 });
    await objects.patch("serverorders", "batch", { spec: approved });
    await objects.waitFor("serverorders", "batch", (o) => pending(o, "orderServers") !== undefined, 30_000);
    const other = env.sim.addUser({ email: `other-${env.namespace}@example.test`, balance: 1000 });
    const otherKey = env.sim.addKey({ userId: other.id });
    await env.putSecret("berth-credentials", { apiKey: otherKey.token, baseUrl: env.baseUrl });
    env.sim.clearFaults();
    const stalled = await objects.waitFor(
      "serverorders",
      "batch",
      withCondition("Stalled", "True", "CredentialsChanged"),
      30_000,
    );
    expect(conditionOf(stalled, "Stalled")?.message).toContain(account.userId);
    // The stalled retry comes and orders nothing with the other key either.
    await reconciledMore(registry, "serverorder", await reconciles(registry, "serverorder"));
    expect(await serviceHttp(env.baseUrl, otherKey.token).items("/servers/orders")).toEqual([]);
    expect(await service.items("/servers/orders")).toHaveLength(1);
    // The owner's key back: the order is found and the ServerOrder goes on.
    await env.putSecret("berth-credentials", { apiKey: account.token, baseUrl: env.baseUrl });
    await objects.waitFor("serverorders", "batch", withCondition("Ready"), 30_000);
    expect(await service.items("/servers/orders")).toHaveLength(1);
  });

  it("deleted while its first order's outcome is unknown: the order is found and its servers deprovisioned", async () => {
    const account = await env.setUp();
    const service = serviceHttp(env.baseUrl, account.token);
    const registry = new Registry();
    await env.startOperator({ registry });
    await objects.create("serverorders", "batch", { ...order, count: 1 });
    await objects.waitFor(
      "serverorders",
      "batch",
      withCondition("Ordered", "False", "AwaitingApproval"),
      30_000,
    );
    env.sim.injectFault({
      operation: "provisionServers",
      dropResponse: true,
      forgetIdempotency: true,
      skip: 1,
      times: 1,
    });
    env.sim.injectFault({ operation: "listOrders", status: 503 });
    await objects.patch("serverorders", "batch", { spec: approved });
    await objects.waitFor("serverorders", "batch", (o) => pending(o, "orderServers") !== undefined, 30_000);
    await lookupFailedAfter(() => objects.remove("serverorders", "batch"));
    env.sim.clearFaults();
    await objects.waitFor("serverorders", "batch", (o) => o === undefined, 40_000);
    const live = (await service.items<ServiceServer>("/servers")).filter((s) => !leaving.has(s.state));
    expect(live).toEqual([]);
    expect(await service.items("/servers/orders")).toHaveLength(1);
  });

  it("a growth order refused for balance: Stalled with a few calls a minute, then grows once credits are added", async () => {
    const { account, orders, live, registry } = await readyOrder({});
    env.sim.setBalance(account.userId, 0);
    const before = env.requests("provisionServers").length;
    await objects.patch("serverorders", "batch", { spec: { count: 2 } });
    await objects.waitFor(
      "serverorders",
      "batch",
      withCondition("Stalled", "True", "InsufficientBalance"),
      30_000,
    );
    // The stalled retry (every 2 s in these tests, a minute by default) makes a dry run and one order call.
    const retries = await stalledRetries(registry, 2);
    expect(env.requests("provisionServers").length - before).toBeLessThanOrEqual(2 * (retries + 1));
    env.sim.setBalance(account.userId, 1000);
    await objects.waitFor(
      "serverorders",
      "batch",
      (o) => withCondition("Ready")(o) && (o?.status?.servers as unknown[] | undefined)?.length === 2,
      30_000,
    );
    expect(await orders()).toHaveLength(2);
    expect(await live()).toHaveLength(2);
  });

  it("an automatic replacement refused for balance: Stalled with a few calls, then replaced once credits are added", async () => {
    const { account, live, registry } = await readyOrder({ autoReplace: true });
    const [server] = await live();
    env.sim.setBalance(account.userId, 0);
    env.sim.failServer(server?.address ?? "");
    // The service does not say when a server fails: berth sees it at the next read, asked for here.
    await objects.patch("serverorders", "batch", {
      metadata: { annotations: { "berth.dev/reconcile-requested-at": "now" } },
    });
    await objects.waitFor(
      "serverorders",
      "batch",
      withCondition("Stalled", "True", "InsufficientBalance"),
      30_000,
    );
    // Each stalled retry makes one replace call at most.
    const retries = await stalledRetries(registry, 2);
    expect(env.requests("replaceServer").length).toBeLessThanOrEqual(retries + 1);
    env.sim.setBalance(account.userId, 1000);
    const replaced = await objects.waitFor(
      "serverorders",
      "batch",
      (o) => withCondition("Ready")(o) && (o?.status?.replacements as unknown[] | undefined)?.length === 1,
      30_000,
    );
    expect(replaced?.status?.servers).toHaveLength(1);
    expect(env.requests("replaceServer").filter((r) => r.status === 202)).toHaveLength(1);
  });
});
