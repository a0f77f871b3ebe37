import { describe, expect, it } from "vitest";
import { type BerthObject, berthObjects, withCondition } from "../support/berth-objects.ts";
import { kubeConfig } from "../support/kube.ts";
import { serviceHttp } from "../support/service-http.ts";
import { approvedOrder, changingOperations, useOperatorEnvironment } from "./support.ts";

/**
 * Every order a ServerOrder holds is claimed, not only its first: a ServerOrder adopting another's
 * growth or replacement order by spec.orderId (as `berth import` prints a ServerOrder per order) is
 * `AlreadyManaged`, and deleting it deprovisions nothing of the other's. Counted from the
 * simulator's request log; the servers are read back at the service.
 */
describe("adopting an order another ServerOrder holds", () => {
  const env = useOperatorEnvironment();
  const objects = berthObjects(kubeConfig(), () => env.namespace);
  const changes = () => changingOperations.map((op) => env.requests(op).length).reduce((a, b) => a + b, 0);
  const listed = (count: number) => (o: BerthObject | undefined) =>
    withCondition("Ready")(o) && (o?.status?.servers as unknown[] | undefined)?.length === count;

  it("a growth order: AlreadyManaged, and its deletion deprovisions none of the holder's servers", async () => {
    const account = await env.setUp();
    await env.startOperator();
    await objects.create("grids", "pool", {});
    await objects.create("serverorders", "batch", approvedOrder(1, "5"));
    await objects.waitFor("serverorders", "batch", listed(1), 60_000);
    await objects.patch("serverorders", "batch", { spec: { count: 2 } });
    const grown = await objects.waitFor(
      "serverorders",
      "batch",
      (o) => listed(2)(o) && (o?.status?.growthOrders as unknown[] | undefined)?.length === 1,
      60_000,
    );
    const [growth] = (grown?.status?.growthOrders ?? []) as { id: string }[];
    if (growth === undefined) throw new Error("no growth order");
    const before = changes();
    // What berth import prints for the growth order: the same placement, in the same Grid.
    await objects.create("serverorders", "adopter", { ...approvedOrder(1, "5"), orderId: growth.id });
    const refused = await objects.waitFor(
      "serverorders",
      "adopter",
      withCondition("Stalled", "True", "AlreadyManaged"),
      30_000,
    );
    const message = refused?.status?.conditions?.find((c) => c.type === "Stalled")?.message ?? "";
    expect(message).toContain(`ServerOrder ${env.namespace}/batch already manages order ${growth.id}`);
    await objects.remove("serverorders", "adopter");
    await objects.waitForGone("serverorders", "adopter", 30_000);
    expect(changes()).toBe(before);
    expect(env.requests("deprovisionServers")).toHaveLength(0);
    const servers = await serviceHttp(env.baseUrl, account.token).items<{ state: string; orderId: string }>(
      "/servers",
    );
    expect(servers.filter((s) => s.state !== "deprovisioned" && s.state !== "deprovisioning")).toHaveLength(
      2,
    );
    // The holder is untouched: still Ready with both servers.
    expect(listed(2)(await objects.get("serverorders", "batch"))).toBe(true);
  });
});
