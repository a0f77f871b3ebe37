import { describe, expect, it } from "vitest";
import { cluster, generation, inCluster, serverOrder, service, world } from "./invariant-fixtures.ts";

const ago = (ms: number) => Date.now() - ms;

describe("chaos invariants: what they forgive", () => {
  it("an order placed right after approval was withdrawn may have been in flight; one placed long after may not", () => {
    const so = serverOrder();
    const { checker, tracked, found } = world(so);
    checker.observeService(
      service({ orders: [{ id: "ord_1", servers: ["running", "running"] }] }),
      ago(50_000),
    );
    tracked(so).approvals.push({ at: ago(5_000), approved: false });
    checker.observeService(
      service({
        orders: [
          { id: "ord_1", servers: ["running", "running"] },
          { id: "ord_2", servers: ["running"] },
        ],
      }),
      ago(40_000),
    );
    expect(found()).toEqual([]);
    tracked(so).approvals = [{ at: ago(120_000), approved: false }];
    checker.observeService(
      service({
        orders: [
          { id: "ord_1", servers: ["running", "running"] },
          { id: "ord_3", servers: ["running"] },
        ],
      }),
      ago(0),
    );
    expect(found()).toEqual(["order-only-when-approved"]);
  });

  it("a replace-server value waits without a deadline while the order waits for approval", () => {
    const so = serverOrder();
    const { checker, tracked, found } = world(so);
    tracked(so).echo = { value: "0xa@t1", at: ago(61_000) };
    const awaiting = {
      type: "Ready",
      status: "False",
      reason: "AwaitingApproval",
      observedGeneration: generation,
    };
    checker.observeCluster(
      cluster({ kind: "ServerOrder", resource: inCluster(so, { orderId: "ord_1" }, [awaiting]) }),
      ago(0),
    );
    expect(found()).toEqual([]);
  });

  it("an echoed replace-server value is no longer waited for", () => {
    const so = serverOrder();
    const { checker, tracked } = world(so);
    tracked(so).echo = { value: "0xa@t1", at: ago(61_000) };
    const status = { orderId: "ord_1", lastHandledReplaceServer: "0xa@t1" };
    checker.observeCluster(cluster({ kind: "ServerOrder", resource: inCluster(so, status) }), ago(0));
    expect(tracked(so).echo).toBeUndefined();
  });
});
