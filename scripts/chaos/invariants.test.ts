import { describe, expect, it } from "vitest";
import { converge } from "./convergence.ts";
import { checkDestroys } from "./destroys.ts";
import { checkConverged, checkLogText, checkStalledCalls } from "./end-checks.ts";
import {
  cluster,
  copyOf,
  inCluster,
  placedAt,
  project,
  provision,
  ready,
  serverOrder,
  serverPrice,
  service,
  stalled,
  steppingClock,
  world,
} from "./invariant-fixtures.ts";
import { type InvariantName, invariantNames } from "./invariant-names.ts";
import { SpendHistory } from "./spend.ts";

/**
 * For each invariant, one history told twice: `broken` breaks exactly that invariant, otherwise
 * the history keeps it. Each returns the invariants the checker reported.
 */
interface History {
  story: string;
  run(broken: boolean): InvariantName[] | Promise<InvariantName[]>;
}

const ago = (ms: number) => Date.now() - ms;

const histories: Record<InvariantName, History> = {
  "one-object-per-resource": {
    story: "a create retried after its answer was lost leaves a second project of the same name",
    run(broken) {
      const p = project("p-0");
      const { checker, found } = world(p);
      const duplicate = broken ? [{ id: "prj_2", name: "ns.p-0" }] : [];
      checker.observeService(service({ projects: [{ id: "prj_1", name: "ns.p-0" }, ...duplicate] }), ago(0));
      return found();
    },
  },
  "one-manager-per-object": {
    story: "a copy of a Project takes its project over: both statuses name it, neither is refused",
    run(broken) {
      const p = project("p-0");
      const copy = copyOf(p, "p-0-copy");
      const { checker, found } = world(p, copy);
      const conditions = broken ? [ready] : [stalled("AlreadyManaged")];
      checker.observeCluster(
        cluster(
          { kind: "Project", resource: inCluster(p, { projectId: "prj_1" }) },
          { kind: "Project", resource: inCluster(copy, { projectId: "prj_1" }, conditions) },
        ),
        ago(0),
      );
      return found();
    },
  },
  "no-destroy-while-managed": {
    story: "a project is deleted while the Project managing it is there and not being deleted",
    run(broken) {
      const p = project("p-0");
      const { checker, ledger, tracked, violations, found } = world(p);
      checker.observeCluster(
        cluster({ kind: "Project", resource: inCluster(p, { projectId: "prj_1" }) }),
        ago(20_000),
      );
      if (!broken) tracked(p).deleteRequestedAt = ago(10_000);
      const destroys = [{ operation: "deleteProject", id: "prj_1", at: ago(5_000), requestId: "req_1" }];
      checkDestroys(destroys, ledger.created(), violations);
      return found();
    },
  },
  "no-release-while-active": {
    story: "a deleted ServerOrder leaves the cluster while its growth order still has running servers",
    run(broken) {
      const so = serverOrder();
      const { checker, tracked, found } = world(so);
      checker.observeCluster(
        cluster({ kind: "ServerOrder", resource: inCluster(so, { orderId: "ord_1" }) }),
        ago(20_000),
      );
      checker.observeService(
        service({
          orders: [
            { id: "ord_1", servers: ["running", "running"] },
            { id: "ord_2", servers: ["running"] },
          ],
        }),
        ago(15_000),
      );
      tracked(so).deleteRequestedAt = ago(10_000);
      checker.observeCluster(cluster(), ago(5_000));
      const growth = broken ? ["running"] : ["deprovisioning"];
      checker.observeService(
        service({
          orders: [
            { id: "ord_1", servers: ["deprovisioning", "deprovisioning"] },
            { id: "ord_2", servers: growth },
          ],
        }),
        ago(0),
      );
      return found();
    },
  },
  "finalizer-held-while-object-exists": {
    story: "a deleted Project leaves the cluster while its project still exists at the service",
    run(broken) {
      const p = project("p-0");
      const { checker, tracked, found } = world(p);
      checker.observeCluster(
        cluster({ kind: "Project", resource: inCluster(p, { projectId: "prj_1" }) }),
        ago(20_000),
      );
      tracked(p).deleteRequestedAt = ago(10_000);
      const deleting = inCluster(p, { projectId: "prj_1" }, [ready], true);
      checker.observeCluster(broken ? cluster() : cluster({ kind: "Project", resource: deleting }), ago(0));
      checker.observeService(service({ projects: [{ id: "prj_1", name: "ns.p-0" }] }), ago(0));
      return found();
    },
  },
  "nothing-left-after-delete": {
    story: "a deleted ServerOrder's first order is gone at the end, its growth order still billing",
    run(broken) {
      const so = serverOrder();
      const { checker, tracked, found } = world(so);
      checker.observeCluster(
        cluster({ kind: "ServerOrder", resource: inCluster(so, { orderId: "ord_1" }) }),
        ago(20_000),
      );
      tracked(so).deleteRequestedAt = ago(10_000);
      checker.observeCluster(cluster(), ago(0));
      const growth = broken ? ["running"] : ["deprovisioning"];
      checker.finalCheck(service({ orders: [{ id: "ord_2", servers: growth }] }), ago(0));
      return found();
    },
  },
  "orphan-keeps-object": {
    story: "a Project deleted with deletionPolicy Orphan takes its project with it",
    run(broken) {
      const p = project("p-0", "Orphan");
      const { checker, tracked, found } = world(p);
      checker.observeCluster(
        cluster({ kind: "Project", resource: inCluster(p, { projectId: "prj_1" }) }),
        ago(20_000),
      );
      tracked(p).deleteRequestedAt = ago(10_000);
      checker.observeCluster(cluster(), ago(0));
      const left = broken ? [] : [{ id: "prj_1", name: "ns.p-0" }];
      checker.finalCheck(service({ projects: left }), ago(0));
      return found();
    },
  },
  "order-within-maxHourlyCost": {
    story: "capped at two servers, a growth order adds a third while none of the first two leaves",
    run(broken) {
      const { checker, found } = world(serverOrder({ count: 2, maxServers: 2 }));
      const first = broken ? ["running", "running"] : ["running", "deprovisioning"];
      checker.observeService(
        service({
          orders: [
            { id: "ord_1", servers: first },
            { id: "ord_2", servers: ["running"] },
          ],
        }),
        ago(0),
      );
      return found();
    },
  },
  "order-only-when-approved": {
    story: "an order appears two minutes after approval was withdrawn",
    run(broken) {
      const so = serverOrder();
      const { checker, tracked, found } = world(so);
      if (broken) tracked(so).approvals = [{ at: ago(120_000), approved: false }];
      checker.observeService(service({ orders: [{ id: "ord_1", servers: ["running"] }] }), ago(0));
      return found();
    },
  },
  "spend-within-limit": {
    story: "room for two servers: a growth order of one is placed while both first servers still run",
    run(broken) {
      const so = serverOrder({ count: 2 });
      const { ledger, violations, found } = world(so);
      const history = new SpendHistory(
        { namespace: "ns", name: "limit", limitMicros: 2 * serverPrice },
        ledger,
      );
      const t0 = ago(60_000);
      const cost = { hourly: { amount: "0.1040", currency: "USD" } };
      const holding = (status: Record<string, unknown>) =>
        cluster({ kind: "ServerOrder", resource: inCluster(so, { orderId: "ord_1", cost, ...status }) });
      const first = { id: "ord_1", servers: ["running", "running"] };
      history.observeCluster(holding({}), t0 + 10_000);
      history.observeService(placedAt(service({ orders: [first] }), { ord_1: t0 }), t0 + 10_000);
      // Shrunk by one before the growth (the server left), or not.
      const shrunk = { ...first, servers: broken ? ["running", "running"] : ["running", "deprovisioning"] };
      const grown = holding({ growthOrders: [{ id: "ord_2", count: 1 }] });
      const orders = [shrunk, { id: "ord_2", state: "provisioning", count: 1, servers: [] }];
      history.observeCluster(holding({}), t0 + 20_000);
      history.observeService(placedAt(service({ orders: [shrunk] }), { ord_1: t0 }), t0 + 20_000);
      history.observeCluster(grown, t0 + 40_000);
      history.observeService(placedAt(service({ orders }), { ord_1: t0, ord_2: t0 + 30_000 }), t0 + 40_000);
      history.addCalls([provision("req_1", t0), provision("req_2", t0 + 30_000)]);
      history.check((sim) => sim, violations);
      return found();
    },
  },
  "servers-equal-count": {
    story: "a Ready ServerOrder of count 2 holds three working servers over two orders",
    run(broken) {
      const so = serverOrder({ count: 2 });
      const { checker, found } = world(so);
      checker.observeCluster(
        cluster({ kind: "ServerOrder", resource: inCluster(so, { orderId: "ord_1" }) }),
        ago(0),
      );
      const first = broken ? ["running", "running"] : ["running", "retiring"];
      checker.finalCheck(
        service({
          orders: [
            { id: "ord_1", servers: first },
            { id: "ord_2", servers: ["running", "failed"] },
          ],
        }),
        ago(0),
      );
      return found();
    },
  },
  "annotation-echoed-within-a-minute": {
    story: "a replace-server value sent 61 s ago is not in status.lastHandledReplaceServer",
    run(broken) {
      const so = serverOrder();
      const { checker, tracked, found } = world(so);
      tracked(so).echo = { value: "0xa@t1", at: ago(61_000) };
      const handled = broken ? "0xa@t0" : "0xa@t1";
      const status = { orderId: "ord_1", lastHandledReplaceServer: handled };
      checker.observeCluster(cluster({ kind: "ServerOrder", resource: inCluster(so, status) }), ago(0));
      return found();
    },
  },
  "stalled-makes-few-calls": {
    story: "a Stalled ServerOrder calls about its order six times in a simulated minute",
    run(broken) {
      const so = serverOrder();
      const { ledger, tracked, violations, found } = world(so);
      tracked(so).last = inCluster(so, { orderId: "ORD_1" }, [stalled("ServerFailed")]);
      const paths = Array.from({ length: broken ? 6 : 5 }, () => "/servers/orders/ord_1");
      checkStalledCalls(ledger.created(), paths, 1, violations);
      return found();
    },
  },
  "over-budget-stalls": {
    story: "a ServerOrder whose estimate is over maxHourlyCost ends Ready instead of Stalled OverBudget",
    run(broken) {
      const so = serverOrder({ overBudget: true });
      const { checker, found } = world(so);
      const conditions = broken ? [ready] : [stalled("OverBudget")];
      checker.observeCluster(
        cluster({ kind: "ServerOrder", resource: inCluster(so, {}, conditions) }),
        ago(0),
      );
      checker.finalCheck(service(), ago(0));
      return found();
    },
  },
  "ends-ready-or-stalled": {
    story: "a Project ends Stalled for a reason the README's troubleshooting table does not list",
    run(broken) {
      const p = project("p-0");
      const { checker, found } = world(p);
      const conditions = [stalled(broken ? "SomethingWentWrong" : "InvalidSpec")];
      checker.observeCluster(
        cluster({ kind: "Project", resource: inCluster(p, { projectId: "prj_1" }, conditions) }),
        ago(0),
      );
      checker.finalCheck(service({ projects: [{ id: "prj_1", name: "ns.p-0" }] }), ago(0));
      return found();
    },
  },
  "ready-matches-service": {
    story: "a renamed Project is Ready while the service still has the old name",
    run(broken) {
      const p = project("p-0");
      const { checker, tracked, found } = world(p);
      tracked(p).spec.displayName = "ns.p-0.v2";
      checker.observeCluster(
        cluster({ kind: "Project", resource: inCluster(p, { projectId: "prj_1" }) }),
        ago(0),
      );
      const name = broken ? "ns.p-0" : "ns.p-0.v2";
      checker.finalCheck(service({ projects: [{ id: "prj_1", name }] }), ago(0));
      return found();
    },
  },
  "resource-stays": {
    story: "a Project nobody deleted is no longer listed",
    run(broken) {
      const p = project("p-0");
      const { checker, found } = world(p);
      const listed = inCluster(p, { projectId: "prj_1" });
      checker.observeCluster(broken ? cluster() : cluster({ kind: "Project", resource: listed }), ago(0));
      return found();
    },
  },
  "no-key-in-logs": {
    story: "the operator logs a request's Authorization header",
    run(broken) {
      const { violations, found } = world();
      const token = "bk_live_0123456789abcdef";
      const header = broken ? `Bearer ${token}` : "Bearer <redacted>";
      checkLogText(
        `{"level":30,"msg":"calling"}\n{"level":50,"authorization":"${header}"}\n`,
        [token],
        violations,
      );
      return found();
    },
  },
  converges: {
    story: "a Project is still Reconciling when the convergence timeout runs out",
    async run(broken) {
      const p = project("p-0");
      const { checker, violations, found } = world(p);
      const reconciling = {
        type: "Reconciling",
        status: "True",
        reason: "Progressing",
        observedGeneration: 3,
      };
      const conditions = broken ? [{ ...ready, status: "False" }, reconciling] : [ready];
      const lists = cluster({ kind: "Project", resource: inCluster(p, { projectId: "prj_1" }, conditions) });
      const clock = steppingClock(Date.now());
      const watch = {
        read: async () => lists,
        observe: (read: typeof lists, at: number) => checker.observeCluster(read, at),
        unsettled: () => checker.unsettled(),
      };
      const { convergedAt, unsettled } = await converge(
        watch,
        { timeoutMs: 90_000, intervalMs: 1000, startedAt: clock.now() },
        clock,
      );
      checkConverged(convergedAt, unsettled, 90, violations);
      return found();
    },
  },
};

describe("every invariant the chaos run reports", () => {
  it("has a history that breaks it and one that keeps it, and no history names an unlisted one", () => {
    const listed: readonly string[] = invariantNames;
    expect(invariantNames.filter((name) => histories[name] === undefined)).toEqual([]);
    expect(Object.keys(histories).filter((name) => !listed.includes(name))).toEqual([]);
  });

  describe.each(invariantNames)("%s", (name) => {
    it("is the only violation reported when a history breaks it", async () => {
      expect(await histories[name].run(true), histories[name].story).toEqual([name]);
    });

    it("is not reported when the same history keeps it", async () => {
      expect(await histories[name].run(false), histories[name].story).toEqual([]);
    });
  });
});

describe("the cost cap over a whole ServerOrder", () => {
  it("counts a growth order in flight at the servers it asks for, before they exist", () => {
    const cost = (growthState: string) => {
      const { checker, found } = world(serverOrder({ count: 2, maxServers: 2 }));
      const orders = [
        { id: "ord_1", servers: ["running", "running"] },
        { id: "ord_2", state: growthState, count: 1, servers: [] },
      ];
      checker.observeService(service({ orders }), ago(0));
      return found();
    };
    expect(cost("provisioning")).toEqual(["order-within-maxHourlyCost"]);
    expect(cost("failed")).toEqual([]);
  });

  it("names the orders and what they cost together", () => {
    const { checker, violations } = world(serverOrder({ count: 2, maxServers: 2 }));
    checker.observeService(
      service({
        orders: [
          { id: "ord_1", servers: ["running", "running"] },
          { id: "ord_2", servers: ["running"] },
        ],
      }),
      ago(0),
    );
    const [violation] = violations.list();
    expect(violation?.detail).toContain(`${((3 * serverPrice) / 1e6).toFixed(2)}/h together`);
    expect(violation?.detail).toContain("ord_1");
    expect(violation?.detail).toContain("ord_2");
  });
});
