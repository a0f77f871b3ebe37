import { describe, expect, it } from "vitest";
import { type BerthObject, berthObjects, conditionOf, withCondition } from "../support/berth-objects.ts";
import { kubeConfig } from "../support/kube.ts";
import { serviceHttp } from "../support/service-http.ts";
import { fastPolls, hasCondition, sleep, until, useOperatorEnvironment, withSamples } from "./support.ts";

/** native.small: 0.0520 USD per hour per server at the simulator. */
const order = { csp: "native", region: "eu-central", zone: "eu-central-1a", instanceType: "native.small" };
const approved = { approved: true, maxHourlyCost: "5.00" };
/** A Stalled resource is not looked at again by itself while a test runs (it is woken by its SpendLimit). */
const noStalledRetry = { polls: fastPolls, stalledRetryMs: 60 * 60_000 };
const refusedBySpend = withCondition("Stalled", "True", "SpendLimitExceeded");

type Intents = { operation: string; state: string }[];
const intentState = (o: BerthObject | undefined, operation: string) =>
  ((o?.status?.intents ?? []) as Intents).find((i) => i.operation === operation)?.state;
const servers = (o: BerthObject | undefined) => ((o?.status?.servers ?? []) as unknown[]).length;
const readyForSpec = (o: BerthObject | undefined) =>
  conditionOf(o, "Ready")?.status === "True" &&
  conditionOf(o, "Ready")?.observedGeneration === o?.metadata.generation;

/**
 * Spend limits across the moves people make while calls are in flight: a call sent again, a
 * SpendLimit re-created. Every order placed is counted from the simulator's request log.
 */
describe("SpendLimit while calls are in flight", () => {
  const env = useOperatorEnvironment();
  const objects = berthObjects(kubeConfig(), () => env.namespace);
  /** Orders the service placed (202, not a replay), in the order it placed them. */
  const placed = () => env.requests("provisionServers").filter((r) => r.status === 202 && !r.replayed);
  /** The operator with writes timing out after 1.5 s: a call the service holds longer is in doubt. */
  const startWithShortWrites = () =>
    env.startOperator({ hosting: { timeoutsMs: { write: 1500 } }, settings: noStalledRetry });

  it("a SpendLimit deleted and re-created while an order is in flight keeps that order's room", {
    timeout: 90_000,
  }, async () => {
    await env.setUp();
    await objects.create("spendlimits", "team", { maxHourlyCost: "0.11" });
    await env.startOperator({ settings: noStalledRetry });
    // The first order (after its dry run) takes 8 s at the service: in flight, its intent Pending.
    const fault = env.sim.injectFault({ operation: "provisionServers", latencyMs: 8000, times: 1, skip: 1 });
    await objects.create("serverorders", "first", { ...order, count: 2, ...approved });
    await env.heldCall(fault, "the first order");
    // kubectl replace --force: the SpendLimit and its status (the room it recorded) go, and come back.
    await objects.remove("spendlimits", "team");
    await objects.waitForGone("spendlimits", "team");
    await objects.create("spendlimits", "team", { maxHourlyCost: "0.11" });
    // 0.104 in flight + 0.052 is past 0.11: refused, though the new SpendLimit recorded nothing.
    await objects.create("serverorders", "second", { ...order, count: 1, ...approved });
    const stalled = await objects.waitFor("serverorders", "second", refusedBySpend);
    expect(conditionOf(stalled, "Stalled")?.message).toContain("would add 0.052/h");
    await objects.waitFor("serverorders", "first", (o) => typeof o?.status?.orderId === "string", 30_000);
    expect(placed()).toHaveLength(1);
    // Not wedged: a raised limit lets it order at once.
    await objects.patch("spendlimits", "team", { spec: { maxHourlyCost: "0.20" } });
    await objects.waitFor("serverorders", "second", (o) => typeof o?.status?.orderId === "string", 30_000);
    expect(placed()).toHaveLength(2);
  });

  it("a SpendLimit re-created while an answered order's servers are on their way keeps that order's room", {
    timeout: 90_000,
  }, async () => {
    await env.setUp();
    // Servers take 30 s to arrive: the order is answered, not yet costed.
    env.sim.setTimings({ order: 600 });
    try {
      await objects.create("spendlimits", "team", { maxHourlyCost: "0.11" });
      await env.startOperator({ settings: noStalledRetry });
      await objects.create("serverorders", "first", { ...order, count: 2, ...approved });
      const answered = await objects.waitFor(
        "serverorders",
        "first",
        (o) => typeof o?.status?.orderId === "string",
      );
      expect(withCondition("Ready")(answered)).toBe(false);
      await objects.remove("spendlimits", "team");
      await objects.waitForGone("spendlimits", "team");
      await objects.create("spendlimits", "team", { maxHourlyCost: "0.11" });
      await objects.create("serverorders", "second", { ...order, count: 1, ...approved });
      await objects.waitFor("serverorders", "second", refusedBySpend);
      expect(placed()).toHaveLength(1);
      await objects.patch("spendlimits", "team", { spec: { maxHourlyCost: "0.20" } });
      await objects.waitFor("serverorders", "second", (o) => typeof o?.status?.orderId === "string", 30_000);
      expect(placed()).toHaveLength(2);
    } finally {
      env.sim.setTimings({ order: 20 });
    }
  });

  it("an order sent again under its key keeps its first room: a refused order is not woken into it", {
    timeout: 120_000,
  }, async () => {
    await env.setUp();
    await objects.create("spendlimits", "team", { maxHourlyCost: "0.11" });
    await startWithShortWrites();
    // The first order (after its dry run) takes 15 s to act: the call times out, the lookup finds nothing yet.
    const fault = env.sim.injectFault({
      operation: "provisionServers",
      latencyMs: 15_000,
      times: 1,
      skip: 1,
    });
    await objects.create("serverorders", "first", { ...order, count: 2, ...approved });
    const held = await env.heldCall(fault, "the first order");
    expect(intentState(await objects.get("serverorders", "first"), "orderServers")).toBe("Pending");
    // Edited while in doubt: the order of 2 is sent again under its key before anything else.
    await objects.patch("serverorders", "first", { spec: { count: 1 } });
    await until(
      () => env.requests("provisionServers").some((r) => r.status === 409),
      "the first order sent again while the service still runs it",
    );
    // 0.104 still held by the call sent again + 0.052 is past 0.11.
    await objects.create("serverorders", "second", { ...order, count: 1, ...approved });
    await objects.waitFor("serverorders", "second", refusedBySpend);
    expect(placed()).toHaveLength(0);
    while (Date.now() - held < 16_000) await sleep(200);
    // The first ends with one server (its order of 2 placed, one deprovisioned); only then the second fits.
    await objects.waitFor("serverorders", "first", (o) => readyForSpec(o) && servers(o) === 1, 60_000);
    await objects.waitFor("serverorders", "second", (o) => typeof o?.status?.orderId === "string", 60_000);
    const log = env
      .requests()
      .filter((r) => r.operation === "provisionServers" || r.operation === "deprovisionServers");
    const secondOrder = log.findLastIndex(
      (r) => r.operation === "provisionServers" && r.status === 202 && !r.replayed,
    );
    const shrink = log.findIndex((r) => r.operation === "deprovisionServers" && r.status < 300);
    expect(placed()).toHaveLength(2);
    expect(shrink).toBeGreaterThanOrEqual(0);
    expect(secondOrder).toBeGreaterThan(shrink);
  });

  it("a growth call sent again under its key goes out and settles: the ServerOrder grows on, never wedged", {
    timeout: 120_000,
  }, async () => {
    await env.setUp();
    await objects.create("spendlimits", "team", { maxHourlyCost: "0.20" });
    await startWithShortWrites();
    await objects.create("serverorders", "batch", { ...order, count: 1, ...approved });
    await objects.waitFor(
      "serverorders",
      "batch",
      (o) => withCondition("Ready")(o) && o?.status?.cost !== undefined,
      30_000,
    );
    // The growth order (after its dry run) takes 15 s to act: in doubt, and not found by the lookup.
    const fault = env.sim.injectFault({
      operation: "provisionServers",
      latencyMs: 15_000,
      times: 1,
      skip: 1,
    });
    await objects.patch("serverorders", "batch", { spec: { count: 2 } });
    await env.heldCall(fault, "the growth order");
    expect(intentState(await objects.get("serverorders", "batch"), "growServers")).toBe("Pending");
    // Edited while in doubt: the growth to 2 is sent again under its key first, then the one to 3.
    await objects.patch("serverorders", "batch", { spec: { count: 3 } });
    const grown = await objects.waitFor(
      "serverorders",
      "batch",
      (o) => readyForSpec(o) && servers(o) === 3,
      60_000,
    );
    expect(conditionOf(grown, "Stalled")?.status).not.toBe("True");
    // 3 × 0.052 = 0.156 within 0.20: the first order and two growth orders of one server each.
    expect(placed()).toHaveLength(3);
    expect(await env.eventReasons("batch")).not.toContain("SpendLimitExceeded");
  });
});

describe("SpendLimit and an App's sizing", () => {
  const env = useOperatorEnvironment(withSamples);
  const objects = berthObjects(kubeConfig(), () => env.namespace);

  it("refuses a hardware resize of a running App it can't price, with no update call, and the App goes on once it is undone", {
    timeout: 90_000,
  }, async () => {
    const account = await env.setUp();
    await env.startOperator({ settings: noStalledRetry });
    await env.create("projects", "demo", {});
    await env.create("apps", "web", { projectRef: { name: "demo" }, image: "nginx:1.27" });
    const running = await env.waitFor(
      "apps",
      "web",
      (a) => a?.status?.state === "running" && hasCondition("Ready")(a) && a.status.cost !== undefined,
    );
    await objects.create("spendlimits", "team", { maxHourlyCost: "0.50" });
    const updates = env.requests("updateApp").length;
    // Four GPUs: 2.01/h at the simulator, which the service states only once it runs.
    await env.patch("apps", "web", { spec: { hardware: { gpu: 4 } } });
    const stalled = await objects.waitFor("apps", "web", refusedBySpend);
    const message = conditionOf(stalled, "Stalled")?.message ?? "";
    expect(message).toContain("can't be priced");
    expect(message).toContain("spec.hardware.gpu");
    expect(message).toContain("SpendLimit team");
    expect(env.requests("updateApp")).toHaveLength(updates);
    const service = serviceHttp(env.baseUrl, account.token);
    const path = `/projects/${running?.status?.projectId}/apps/${running?.status?.appId}`;
    const app = await service.get<{ config: { hardware: Record<string, unknown> } }>(path);
    expect(app.body.config.hardware.gpu).toBeUndefined();
    // Undone: Ready for the new spec with nothing called.
    await env.patch("apps", "web", { spec: { hardware: null } });
    await objects.waitFor("apps", "web", readyForSpec);
    expect(env.requests("updateApp")).toHaveLength(updates);
  });
});
