import { describe, expect, it } from "vitest";
import { kstatusOf } from "../../src/api/kstatus.ts";
import { berthObjects, conditionOf, withCondition } from "../support/berth-objects.ts";
import { kubeConfig } from "../support/kube.ts";
import { serviceHttp } from "../support/service-http.ts";
import { useOperatorEnvironment } from "./support.ts";

interface ServiceServer {
  address: string;
  orderId: string;
  gridIds: string[];
  state: string;
}

/** Two native.small servers: 0.1040 USD per hour at the simulator. */
const order = {
  csp: "native",
  region: "eu-central",
  zone: "eu-central-1a",
  instanceType: "native.small",
  count: 2,
};
const approved = { approved: true, maxHourlyCost: "0.20" };

describe("ServerOrder", () => {
  const env = useOperatorEnvironment();
  const objects = berthObjects(kubeConfig(), () => env.namespace);

  async function setUp(key: { scopes?: string[]; balance?: number } = {}) {
    const account = await env.setUp(key);
    await env.startOperator();
    return { account, service: serviceHttp(env.baseUrl, account.token) };
  }

  /** Real orders the service took (a 202 that was not a replay). */
  const placedOrders = () => env.requests("provisionServers").filter((r) => r.status === 202 && !r.replayed);

  it("only asks for an estimate until approved, then orders, joins the Grid and lists the servers", async () => {
    const { service } = await setUp();
    await objects.create("grids", "pool", {});
    const grid = await objects.waitFor("grids", "pool", withCondition("Ready"));
    const gridId = grid?.status?.gridId as string;
    await objects.create("serverorders", "batch", { ...order, gridRefs: [{ name: "pool" }] });

    const awaiting = await objects.waitFor(
      "serverorders",
      "batch",
      withCondition("Ordered", "False", "AwaitingApproval"),
    );
    expect(awaiting?.status?.estimate).toEqual({ hourlyCost: "0.1040", currency: "USD" });
    expect(conditionOf(awaiting, "Ready")).toMatchObject({ status: "False", reason: "AwaitingApproval" });
    // Waiting for a person is no work in flight and no failure: Flux (kstatus) reads it Current, so a
    // Kustomization does not time out on a dry run, while Ready=False keeps `kubectl wait` waiting.
    expect(conditionOf(awaiting, "Reconciling")).toBeUndefined();
    expect(conditionOf(awaiting, "Stalled")).toBeUndefined();
    expect(kstatusOf({ ...awaiting, kind: "ServerOrder" } as Parameters<typeof kstatusOf>[0]).status).toBe(
      "Current",
    );
    expect(awaiting?.metadata.finalizers).toContain("berth.dev/finalizer");
    expect(env.requests("provisionServers").map((r) => r.status)).toEqual([200]);
    expect(placedOrders()).toEqual([]);

    await objects.patch("serverorders", "batch", { spec: approved });
    const ready = await objects.waitFor("serverorders", "batch", withCondition("Ready"));
    const orderId = ready?.status?.orderId;
    expect(orderId).toMatch(/^ord_/);
    expect(ready?.status?.phase).toBe("Provisioned");
    expect(conditionOf(ready, "Ordered")?.status).toBe("True");
    const servers = await service.items<ServiceServer>(`/servers?orderId=${orderId}`);
    expect(servers).toHaveLength(2);
    expect(ready?.status?.servers).toEqual(
      servers.map((s) => ({ address: s.address, state: "running", power: "On" })),
    );
    const inGrid = await service.items<ServiceServer>(`/servers?gridId=${gridId}`);
    expect(inGrid.map((s) => s.address).sort()).toEqual(servers.map((s) => s.address).sort());
    expect(placedOrders()).toHaveLength(1);
    expect(await env.eventReasons("batch")).toEqual(
      expect.arrayContaining(["Estimated", "Ordered", "Ready"]),
    );
  });

  it("waits for a referenced Grid to have its ID before estimating", async () => {
    await setUp();
    await objects.create("serverorders", "batch", { ...order, gridRefs: [{ name: "later" }] });
    const waiting = await objects.waitFor(
      "serverorders",
      "batch",
      withCondition("Reconciling", "True", "GridNotReady"),
    );
    expect(conditionOf(waiting, "Reconciling")?.message).toContain("later");
    expect(env.requests("provisionServers")).toEqual([]);
    await objects.create("grids", "later", {});
    await objects.waitFor("serverorders", "batch", withCondition("Ordered", "False", "AwaitingApproval"));
  });

  it("refuses an estimate above maxHourlyCost without ordering", async () => {
    await setUp();
    await objects.create("serverorders", "batch", { ...order, approved: true, maxHourlyCost: "0.10" });
    const stalled = await objects.waitFor(
      "serverorders",
      "batch",
      withCondition("Stalled", "True", "OverBudget"),
    );
    expect(conditionOf(stalled, "Stalled")?.message).toMatch(
      /0\.1040 USD per hour.*above spec\.maxHourlyCost 0\.10/,
    );
    expect(conditionOf(stalled, "Ordered")).toMatchObject({ status: "False", reason: "OverBudget" });
    expect(placedOrders()).toEqual([]);
  });

  it("without compute:spend: Stalled MissingScopes and no call to the service but /me", async () => {
    await setUp({ scopes: ["pools:write"] });
    await objects.create("serverorders", "batch", { ...order, ...approved });
    const stalled = await objects.waitFor(
      "serverorders",
      "batch",
      withCondition("Stalled", "True", "MissingScopes"),
    );
    expect(conditionOf(stalled, "Stalled")?.message).toContain("compute:spend");
    expect(env.requests().map((r) => r.operation)).toEqual(["getMe"]);
  });

  it("names a value the catalog does not offer and lists the valid ones", async () => {
    await setUp();
    await objects.create("serverorders", "batch", { ...order, zone: "eu-central-9z" });
    const stalled = await objects.waitFor(
      "serverorders",
      "batch",
      withCondition("Stalled", "True", "InvalidSpec"),
    );
    expect(conditionOf(stalled, "Stalled")?.message).toContain(
      'spec.zone "eu-central-9z" is not a zone of region eu-central (valid: eu-central-1a, eu-central-1b, eu-central-1c)',
    );
    expect(env.requests("provisionServers")).toEqual([]);
  });

  it("reports a spec change after the order instead of ordering again", async () => {
    await setUp();
    await objects.create("serverorders", "batch", { ...order, ...approved });
    await objects.waitFor("serverorders", "batch", withCondition("Ready"));
    await objects.patch("serverorders", "batch", { spec: { zone: "eu-central-1b" } });
    const stalled = await objects.waitFor(
      "serverorders",
      "batch",
      withCondition("Stalled", "True", "ImmutableAfterOrder"),
    );
    expect(conditionOf(stalled, "Stalled")?.message).toContain("spec.zone is eu-central-1b");
    // A count that grows while not approved only gets a dry run of the difference.
    await objects.patch("serverorders", "batch", { spec: { zone: order.zone, count: 3, approved: false } });
    const awaiting = await objects.waitFor(
      "serverorders",
      "batch",
      withCondition("Ready", "False", "AwaitingApproval"),
    );
    expect(conditionOf(awaiting, "Ready")?.message).toMatch(
      /1 more × native\.small \(0\.1560 USD for all 3\)/,
    );
    expect(placedOrders()).toHaveLength(1);
  });

  it("shows the service's reason when the zone has no capacity", async () => {
    await setUp();
    env.sim.setCapacity("eu-central-1a", false);
    try {
      await objects.create("serverorders", "batch", { ...order, ...approved });
      const stalled = await objects.waitFor(
        "serverorders",
        "batch",
        withCondition("Stalled", "True", "CapacityUnavailable"),
      );
      expect(stalled?.status?.phase).toBe("Failed");
      expect(conditionOf(stalled, "Stalled")?.message).toContain("eu-central-1a");
    } finally {
      env.sim.setCapacity("eu-central-1a", true);
    }
    // Another zone orders anew; the failed order delivered nothing.
    await objects.patch("serverorders", "batch", { spec: { zone: "eu-central-1b" } });
    const ready = await objects.waitFor("serverorders", "batch", withCondition("Ready"));
    expect(placedOrders()).toHaveLength(2);
    expect(ready?.status?.servers).toHaveLength(2);
  });

  it("stalls on insufficient balance and orders once credits are added", async () => {
    const { account } = await setUp({ balance: 0 });
    await objects.create("serverorders", "batch", { ...order, ...approved });
    const stalled = await objects.waitFor(
      "serverorders",
      "batch",
      withCondition("Stalled", "True", "InsufficientBalance"),
    );
    expect(conditionOf(stalled, "Ordered")).toMatchObject({ status: "False", reason: "InsufficientBalance" });
    env.sim.setBalance(account.userId, 100);
    // The stalled retry sends a new order call: the refused one's key would replay the refusal.
    await objects.waitFor("serverorders", "batch", withCondition("Ready"), 30_000);
    expect(placedOrders()).toHaveLength(1);
  });

  it("after an order whose answer was lost, finds the order instead of placing another", async () => {
    const { service } = await setUp();
    await objects.create("serverorders", "batch", order);
    await objects.waitFor("serverorders", "batch", withCondition("Ordered", "False", "AwaitingApproval"));
    // The service places the order, forgets the key, and drops the connection (the call after the
    // fresh estimate that comes right before every order).
    env.sim.injectFault({
      operation: "provisionServers",
      dropResponse: true,
      forgetIdempotency: true,
      skip: 1,
      times: 1,
    });
    await objects.patch("serverorders", "batch", { spec: approved });
    const ready = await objects.waitFor("serverorders", "batch", withCondition("Ready"));
    const orders = await service.items<{ id: string }>("/servers/orders");
    expect(orders.map((o) => o.id)).toEqual([ready?.status?.orderId]);
    expect(await env.eventReasons("batch")).toContain("Adopted");
    expect(env.requests("listOrders").length).toBeGreaterThan(0);
  });

  it("deprovisions the servers when deleted, then lets go", async () => {
    const { service } = await setUp();
    await objects.create("serverorders", "batch", { ...order, ...approved });
    const ready = await objects.waitFor("serverorders", "batch", withCondition("Ready"));
    await objects.remove("serverorders", "batch");
    await objects.waitFor("serverorders", "batch", (o) => o === undefined);
    expect(await service.items(`/servers?orderId=${ready?.status?.orderId}`)).toEqual([]);
    expect(env.requests("deprovisionServers").map((r) => r.status)).toEqual([202]);
  });

  it("keeps the servers under deletionPolicy Orphan", async () => {
    const { service } = await setUp();
    await objects.create("serverorders", "batch", { ...order, ...approved, deletionPolicy: "Orphan" });
    const ready = await objects.waitFor("serverorders", "batch", withCondition("Ready"));
    await objects.remove("serverorders", "batch");
    await objects.waitFor("serverorders", "batch", (o) => o === undefined);
    const servers = await service.items<ServiceServer>(`/servers?orderId=${ready?.status?.orderId}`);
    expect(servers.map((s) => s.state)).toEqual(["running", "running"]);
    expect(env.requests("deprovisionServers")).toEqual([]);
  });

  it("deleted while the order is in flight: waits for its servers, then deprovisions them", async () => {
    const { service } = await setUp();
    await objects.create("serverorders", "batch", { ...order, ...approved });
    const ordered = await objects.waitFor(
      "serverorders",
      "batch",
      (o) => typeof o?.status?.orderId === "string",
    );
    await objects.remove("serverorders", "batch");
    await objects.waitFor("serverorders", "batch", (o) => o === undefined, 30_000);
    expect(await service.items(`/servers?orderId=${ordered?.status?.orderId}`)).toEqual([]);
    expect(placedOrders()).toHaveLength(1);
  });
});
