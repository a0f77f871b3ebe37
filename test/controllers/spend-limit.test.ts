import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { type BerthObject, berthObjects, conditionOf, withCondition } from "../support/berth-objects.ts";
import { kubeConfig } from "../support/kube.ts";
import { serviceHttp } from "../support/service-http.ts";
import {
  approvedOrder,
  changingOperations,
  fastPolls,
  hasCondition,
  until,
  useOperatorEnvironment,
} from "./support.ts";

/** native.small: 0.0520 USD per hour per server at the simulator. */
const order = { csp: "native", region: "eu-central", zone: "eu-central-1a", instanceType: "native.small" };
const approved = { approved: true, maxHourlyCost: "5.00" };
/**
 * A Stalled resource is not looked at again by itself while a test runs: a refused resource that
 * goes on was woken by the change to its SpendLimit, not by a slow retry.
 */
const noStalledRetry = { settings: { polls: fastPolls, stalledRetryMs: 60 * 60_000 } };

describe("SpendLimit", () => {
  const env = useOperatorEnvironment();
  const objects = berthObjects(kubeConfig(), () => env.namespace);
  const amount = (money: unknown) => Number((money as { amount?: string } | undefined)?.amount ?? 0);
  const placedOrders = () => env.requests("provisionServers").filter((r) => r.status === 202 && !r.replayed);
  const refusedBySpend = withCondition("Stalled", "True", "SpendLimitExceeded");
  const stalledMessage = (o: BerthObject | undefined) => conditionOf(o, "Stalled")?.message ?? "";
  const changes = () => changingOperations.map((op) => env.requests(op).length).reduce((a, b) => a + b, 0);

  /** A ServerOrder of `count` servers, Ready with its cost stated (what the SpendLimit counts). */
  async function readyOrder(name: string, count: number) {
    await objects.create("serverorders", name, { ...order, count, ...approved });
    return objects.waitFor(
      "serverorders",
      name,
      (o) => withCondition("Ready")(o) && o?.status?.cost !== undefined,
      30_000,
    );
  }

  /** An App of the Project `demo`, running (or stopped, as `spec.stopped` says) and Ready. */
  async function readyApp(name: string, spec: Record<string, unknown> = {}) {
    await env.create("projects", "demo", {});
    await env.create("apps", name, { projectRef: { name: "demo" }, image: "nginx:1.27", ...spec });
    const state = spec.stopped === true ? "stopped" : "running";
    return env.waitFor(
      "apps",
      name,
      (a) => a?.status?.state === state && hasCondition("Ready")(a) && a.status.cost !== undefined,
    );
  }

  it("refuses an order above the room left with no order call, and orders at once when the limit rises", async () => {
    await env.setUp();
    await objects.create("spendlimits", "team", { maxHourlyCost: "0.20" });
    await env.startOperator(noStalledRetry);
    await objects.create("serverorders", "big", { ...order, count: 4, ...approved });
    const stalled = await objects.waitFor("serverorders", "big", refusedBySpend);
    const message = stalledMessage(stalled);
    expect(message).toContain("SpendLimit team");
    expect(message).toContain("0.208/h");
    expect(message).toContain("maxHourlyCost 0.20");
    expect(placedOrders()).toEqual([]);
    const limit = await objects.waitFor(
      "spendlimits",
      "team",
      (o) => (o?.status?.refusedCount as number) === 1,
    );
    expect(limit?.status?.refused).toEqual([
      expect.objectContaining({ resource: "ServerOrder/big", adds: "0.208" }),
    ]);

    // Woken by the change: the Stalled retry would come only after an hour.
    await objects.patch("spendlimits", "team", { spec: { maxHourlyCost: "0.30" } });
    await objects.waitFor("serverorders", "big", (o) => typeof o?.status?.orderId === "string");
    expect(placedOrders()).toHaveLength(1);
  });

  it("two ServerOrders applied together with room for one: exactly one orders", async () => {
    await env.setUp();
    await objects.create("spendlimits", "team", { maxHourlyCost: "0.15" });
    await env.startOperator();
    await Promise.all([
      objects.create("serverorders", "first", { ...order, count: 2, ...approved }),
      objects.create("serverorders", "second", { ...order, count: 2, ...approved }),
    ]);
    // One orders; the other ends refused (an estimate can be refused on its way too: the end counts).
    const states = async () =>
      Promise.all(["first", "second"].map((name) => objects.get("serverorders", name)));
    await until(async () => {
      const both = await states();
      const ordered = both.filter((o) => typeof o?.status?.orderId === "string");
      const refused = both.filter((o) => conditionOf(o, "Stalled")?.reason === "SpendLimitExceeded");
      return ordered.length === 1 && refused.length === 1;
    }, "one ServerOrder ordered and the other refused");
    expect(placedOrders()).toHaveLength(1);
    // The SpendLimit shows the refusal, and counts the order: committed while it is not costed yet,
    // used once it is (its recount follows the orders' status, so it is waited for).
    await objects.waitFor(
      "spendlimits",
      "team",
      (o) =>
        (o?.status?.refusedCount as number) === 1 &&
        amount(o?.status?.used) + amount(o?.status?.committed) > 0,
    );
  });

  it("refuses an App create over the limit with no create call", async () => {
    await env.setUp();
    await objects.create("spendlimits", "team", { maxHourlyCost: "0.05", appReserve: "0.10" });
    await env.startOperator();
    await env.create("projects", "demo", {});
    await env.create("apps", "web", { projectRef: { name: "demo" }, image: "nginx:1.27" });
    const stalled = await objects.waitFor("apps", "web", refusedBySpend);
    expect(stalledMessage(stalled)).toContain("SpendLimit team");
    expect(env.requests("createApp")).toEqual([]);
  });

  it("refuses an App created stopped over the limit with no create call: the service starts what it creates", async () => {
    await env.setUp();
    await objects.create("spendlimits", "team", { maxHourlyCost: "0.05", appReserve: "0.10" });
    await env.startOperator();
    await env.create("projects", "demo", {});
    await env.create("apps", "web", { projectRef: { name: "demo" }, image: "nginx:1.27", stopped: true });
    const stalled = await objects.waitFor("apps", "web", refusedBySpend);
    expect(stalledMessage(stalled)).toContain("creating the app would add 0.10/h");
    expect(env.requests("createApp")).toEqual([]);
  });

  it("refuses an App start (spec.stopped true → false) over the limit with no start call", async () => {
    await env.setUp();
    await env.startOperator();
    await readyApp("web", { stopped: true });
    await objects.create("spendlimits", "team", { maxHourlyCost: "0.05", appReserve: "0.10" });
    await env.patch("apps", "web", { spec: { stopped: false } });
    const stalled = await objects.waitFor("apps", "web", refusedBySpend);
    expect(stalledMessage(stalled)).toContain("starting the app would add 0.10/h");
    expect(stalledMessage(stalled)).toContain("SpendLimit team");
    expect(env.requests("startApp")).toEqual([]);
    expect((await env.get("apps", "web"))?.status?.state).toBe("stopped");
  });

  it("refuses an instances raise of a running App over the limit with no update call", async () => {
    const account = await env.setUp();
    await env.startOperator();
    // One node runs (instances.min) at 0.0120/h: a node's price is what the service states ÷ nodes running.
    const running = await readyApp("web", { instances: { min: 1, max: 2 } });
    expect(running?.status?.cost).toEqual({ hourly: { amount: "0.0120", currency: "USD" } });
    await objects.create("spendlimits", "team", { maxHourlyCost: "0.05" });
    const updates = env.requests("updateApp").length;
    // Up to five nodes: 5 × 0.012 = 0.06/h, past 0.05.
    await env.patch("apps", "web", { spec: { instances: { min: 1, max: 5 } } });
    const stalled = await objects.waitFor("apps", "web", refusedBySpend);
    expect(stalledMessage(stalled)).toContain("would add 0.048/h");
    expect(env.requests("updateApp")).toHaveLength(updates);
    const service = serviceHttp(env.baseUrl, account.token);
    const app = await service.get<{ config: { instances: unknown } }>(
      `/projects/${running?.status?.projectId}/apps/${running?.status?.appId}`,
    );
    expect(app.body.config.instances).toEqual({ min: 1, max: 2 });
  });

  it("an instances raise of an App Ready all along holds its room only until it is Ready for the new spec", async () => {
    await env.setUp();
    await env.startOperator();
    await readyApp("web", { instances: { min: 1, max: 2 } });
    await objects.create("spendlimits", "team", { maxHourlyCost: "0.06", appReserve: "0.03" });
    const updates = env.requests("updateApp").length;
    // Up to four nodes: counted at 4 × 0.012 = 0.048/h until the App is Ready for that spec.
    await env.patch("apps", "web", { spec: { instances: { min: 1, max: 4 } } });
    const readyForSpec = (a: BerthObject | undefined) =>
      conditionOf(a, "Ready")?.status === "True" &&
      conditionOf(a, "Ready")?.observedGeneration === a?.metadata.generation;
    await objects.waitFor(
      "apps",
      "web",
      (a) => readyForSpec(a) && env.requests("updateApp").length > updates,
    );
    // The App still costs 0.012/h: another App's 0.03/h fits (it would not against a 0.048/h reserve).
    await env.create("apps", "api", { projectRef: { name: "demo" }, image: "nginx:1.27" });
    await objects.waitFor("apps", "api", withCondition("Ready"), 30_000);
    expect(env.requests("createApp").filter((r) => r.status === 201)).toHaveLength(2);
  });

  it("refuses a growth order over the limit with no growth order", async () => {
    await env.setUp();
    await objects.create("spendlimits", "team", { maxHourlyCost: "0.10" });
    await env.startOperator();
    await objects.create("grids", "pool", {});
    await objects.create("serverorders", "batch", approvedOrder(1));
    await objects.waitFor(
      "serverorders",
      "batch",
      (o) => withCondition("Ready")(o) && o?.status?.cost !== undefined,
      30_000,
    );
    expect(placedOrders()).toHaveLength(1);
    // Three servers at 0.052: 0.156/h for all, 0.104 more than the one running.
    await objects.patch("serverorders", "batch", { spec: { count: 3 } });
    const stalled = await objects.waitFor("serverorders", "batch", refusedBySpend);
    expect(stalledMessage(stalled)).toContain(
      "ordering more servers for a higher spec.count would add 0.104/h",
    );
    expect(placedOrders()).toHaveLength(1);
    expect(stalled?.status?.growthOrders ?? []).toEqual([]);
  });

  it("refuses a wake over the limit with no wake call, the servers left hibernated", async () => {
    const account = await env.setUp();
    await objects.create("spendlimits", "team", { maxHourlyCost: "0.10" });
    await env.startOperator();
    const ready = await readyOrder("batch", 1);
    await objects.patch("serverorders", "batch", { spec: { power: "Hibernated" } });
    await objects.waitFor("serverorders", "batch", (o) =>
      ((o?.status?.servers ?? []) as { power?: string }[]).every((s) => s.power === "Hibernated"),
    );
    const powerCalls = env.requests("powerServers").length;
    // A hibernated server pays for its disk; woken it costs 0.052/h again, past 0.03.
    await objects.patch("spendlimits", "team", { spec: { maxHourlyCost: "0.03" } });
    await objects.patch("serverorders", "batch", { spec: { power: "On" } });
    const stalled = await objects.waitFor("serverorders", "batch", refusedBySpend);
    expect(stalledMessage(stalled)).toContain("SpendLimit team");
    expect(env.requests("powerServers")).toHaveLength(powerCalls);
    const service = serviceHttp(env.baseUrl, account.token);
    const servers = await service.items<{ state: string }>(`/servers?orderId=${ready?.status?.orderId}`);
    expect(servers.map((s) => s.state)).toEqual(["hibernated"]);
  });

  it("refuses a replacement over the limit with no replace call", async () => {
    await env.setUp();
    await objects.create("spendlimits", "team", { maxHourlyCost: "0.08" });
    await env.startOperator();
    const ready = await readyOrder("batch", 1);
    const [server] = (ready?.status?.servers ?? []) as { address: string }[];
    // While both run the new server adds 0.052/h: 0.104, past 0.08.
    await objects.patch("serverorders", "batch", {
      metadata: { annotations: { "berth.dev/replace-server": `${server?.address}@ticket-1` } },
    });
    const stalled = await objects.waitFor("serverorders", "batch", refusedBySpend);
    expect(stalledMessage(stalled)).toContain("replacing a server would add 0.052/h");
    expect(env.requests("replaceServer")).toEqual([]);
  });

  it("spend freed by deleting another resource lets a refused one order at once", async () => {
    await env.setUp();
    await objects.create("spendlimits", "team", { maxHourlyCost: "0.15" });
    await env.startOperator(noStalledRetry);
    await readyOrder("first", 2);
    await objects.create("serverorders", "second", { ...order, count: 2, ...approved });
    await objects.waitFor("serverorders", "second", refusedBySpend);
    expect(placedOrders()).toHaveLength(1);
    await objects.remove("serverorders", "first");
    // Woken by the SpendLimit's recount once "first" is gone: the Stalled retry would come only after an hour.
    await objects.waitFor("serverorders", "second", (o) => typeof o?.status?.orderId === "string", 30_000);
    expect(placedOrders()).toHaveLength(2);
  });

  it("room a call never used frees once its commitment expires, and the SpendLimit wakes what it refused then", async () => {
    await env.setUp();
    await objects.create("spendlimits", "team", { maxHourlyCost: "0.15" });
    await env.startOperator({ settings: { ...noStalledRetry.settings, spendCommitmentTtlMs: 4000 } });
    const first = await readyOrder("first", 1);
    // Room taken for a growth to 3 servers whose call never came (the operator died before it, and
    // the count went back): only its lifetime ends it, since "first" stays Ready and costed as it was.
    const ready = conditionOf(first, "Ready");
    const commitment = {
      resource: "ServerOrder/first",
      uid: first?.metadata.uid,
      hourly: "0.156",
      adds: "0.104",
      since: new Date().toISOString(),
      readyBefore: {
        lastTransitionTime: ready?.lastTransitionTime,
        observedGeneration: ready?.observedGeneration,
      },
    };
    await objects.patchStatus("spendlimits", "team", { commitments: [commitment] });
    await objects.create("serverorders", "second", { ...order, count: 1, ...approved });
    await objects.waitFor("serverorders", "second", refusedBySpend);
    expect(placedOrders()).toHaveLength(1);
    // Woken by the recount at its expiry: the next minute's recount, or the Stalled retry, would be too late.
    await objects.waitFor("serverorders", "second", (o) => typeof o?.status?.orderId === "string", 15_000);
    expect(placedOrders()).toHaveLength(2);
  });

  it("a price rise past the limit is reported on the SpendLimit, and nothing is stopped or deleted", async () => {
    const account = await env.setUp();
    const registry = new Registry();
    await objects.create("spendlimits", "team", { maxHourlyCost: "0.10" });
    await env.startOperator({ registry });
    const ready = await readyOrder("batch", 1);
    const [server] = (ready?.status?.servers ?? []) as { address: string }[];
    await objects.waitFor("spendlimits", "team", withCondition("Ready", "True", "WithinLimit"));
    const before = changes();
    // The provider charges 0.12/h for the server from now on; berth reads it on its next look.
    env.sim.repriceServer(server?.address ?? "", "0.12");
    await objects.patch("serverorders", "batch", {
      metadata: { annotations: { "berth.dev/reconcile-requested-at": "after-price-rise" } },
    });
    const exceeded = await objects.waitFor(
      "spendlimits",
      "team",
      withCondition("Ready", "False", "SpendLimitExceeded"),
    );
    expect(conditionOf(exceeded, "Ready")?.message).toContain("costs 0.12/h, past maxHourlyCost 0.10");
    expect(conditionOf(exceeded, "Ready")?.message).toContain("nothing running is stopped");
    await env.waitForEvent("team", "SpendLimitExceeded");
    const metrics = await registry.metrics();
    expect(metrics).toContain(`berth_namespace_hourly_spend{namespace="${env.namespace}"} 0.12`);
    expect(metrics).toContain(`berth_spend_limit_hourly{namespace="${env.namespace}",spendlimit="team"} 0.1`);
    // berth called nothing that changes anything: the server runs on, the ServerOrder stays Ready.
    expect(changes()).toBe(before);
    const service = serviceHttp(env.baseUrl, account.token);
    const servers = await service.items<{ state: string }>(`/servers?orderId=${ready?.status?.orderId}`);
    expect(servers.map((s) => s.state)).toEqual(["running"]);
    const after = await objects.get("serverorders", "batch");
    expect(withCondition("Ready")(after)).toBe(true);
    expect(after?.metadata.deletionTimestamp).toBeUndefined();
  });
});
