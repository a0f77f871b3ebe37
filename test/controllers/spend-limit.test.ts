import { describe, expect, it } from "vitest";
import { berthObjects, conditionOf, withCondition } from "../support/berth-objects.ts";
import { kubeConfig } from "../support/kube.ts";
import { until, useOperatorEnvironment } from "./support.ts";

/** native.small: 0.0520 USD per hour per server at the simulator. */
const order = { csp: "native", region: "eu-central", zone: "eu-central-1a", instanceType: "native.small" };
const approved = { approved: true, maxHourlyCost: "5.00" };

describe("SpendLimit", () => {
  const env = useOperatorEnvironment();
  const objects = berthObjects(kubeConfig(), () => env.namespace);
  const amount = (money: unknown) => Number((money as { amount?: string } | undefined)?.amount ?? 0);
  const placedOrders = () => env.requests("provisionServers").filter((r) => r.status === 202 && !r.replayed);

  it("refuses an order above the room left with no order call, and orders at once when the limit rises", async () => {
    await env.setUp();
    await objects.create("spendlimits", "team", { maxHourlyCost: "0.20" });
    await env.startOperator();
    await objects.create("serverorders", "big", { ...order, count: 4, ...approved });
    const stalled = await objects.waitFor(
      "serverorders",
      "big",
      withCondition("Stalled", "True", "SpendLimitExceeded"),
    );
    const message = conditionOf(stalled, "Stalled")?.message ?? "";
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

    const raisedAt = Date.now();
    await objects.patch("spendlimits", "team", { spec: { maxHourlyCost: "0.30" } });
    await objects.waitFor("serverorders", "big", (o) => typeof o?.status?.orderId === "string");
    // Woken by the change, not by the slow Stalled retry.
    expect(Date.now() - raisedAt).toBeLessThan(15_000);
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
    const stalled = await objects.waitFor(
      "apps",
      "web",
      withCondition("Stalled", "True", "SpendLimitExceeded"),
    );
    expect(conditionOf(stalled, "Stalled")?.message).toContain("SpendLimit team");
    expect(env.requests("createApp")).toEqual([]);
  });
});
