import { describe, expect, it } from "vitest";
import { converge } from "./convergence.ts";
import { checkDestroys } from "./destroys.ts";
import { checkConverged, checkLogText, checkStalledCalls } from "./end-checks.ts";
import { checkHeldCalls } from "./holds.ts";
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
import type { Violation } from "./ledger.ts";
import { SpendHistory } from "./spend.ts";

/**
 * For each invariant, one history told twice: `broken` breaks exactly that invariant, otherwise
 * the history keeps it. Each returns the invariants the checker reported.
 */
interface History {
  story: string;
  run(broken: boolean): Violation[] | Promise<Violation[]>;
}

const ago = (ms: number) => Date.now() - ms;
const names = (found: Violation[]): InvariantName[] => [...new Set(found.map((v) => v.invariant))];

const histories: Record<InvariantName, History> = {
  "one-object-per-resource": {
    story: "a create retried after its answer was lost leaves a second project of the same name",
    run(broken) {
      const p = project("p-0");
      const { checker, violations } = world(p);
      const duplicate = broken ? [{ id: "prj_2", name: "ns.p-0" }] : [];
      checker.observeService(service({ projects: [{ id: "prj_1", name: "ns.p-0" }, ...duplicate] }), ago(0));
      return violations.list();
    },
  },
  "one-manager-per-object": {
    story: "a copy of a Project takes its project over: both statuses name it, neither is refused",
    run(broken) {
      const p = project("p-0");
      const copy = copyOf(p, "p-0-copy");
      const { checker, violations } = world(p, copy);
      const conditions = broken ? [ready] : [stalled("AlreadyManaged")];
      checker.observeCluster(
        cluster(
          { kind: "Project", resource: inCluster(p, { projectId: "prj_1" }) },
          { kind: "Project", resource: inCluster(copy, { projectId: "prj_1" }, conditions) },
        ),
        ago(0),
      );
      return violations.list();
    },
  },
  "no-destroy-while-managed": {
    story: "a project is deleted while the Project managing it is there and not being deleted",
    run(broken) {
      const p = project("p-0");
      const { checker, ledger, tracked, violations } = world(p);
      checker.observeCluster(
        cluster({ kind: "Project", resource: inCluster(p, { projectId: "prj_1" }) }),
        ago(20_000),
      );
      if (!broken) tracked(p).deleteRequestedAt = ago(10_000);
      const destroys = [{ operation: "deleteProject", id: "prj_1", at: ago(5_000), requestId: "req_1" }];
      checkDestroys(destroys, ledger.created(), violations);
      return violations.list();
    },
  },
  "no-release-while-active": {
    story: "a deleted ServerOrder leaves the cluster while its growth order still has running servers",
    run(broken) {
      const so = serverOrder();
      const { checker, tracked, violations } = world(so);
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
      return violations.list();
    },
  },
  "finalizer-held-while-object-exists": {
    story: "a deleted Project leaves the cluster while its project still exists at the service",
    run(broken) {
      const p = project("p-0");
      const { checker, tracked, violations } = world(p);
      checker.observeCluster(
        cluster({ kind: "Project", resource: inCluster(p, { projectId: "prj_1" }) }),
        ago(20_000),
      );
      tracked(p).deleteRequestedAt = ago(10_000);
      const deleting = inCluster(p, { projectId: "prj_1" }, [ready], true);
      checker.observeCluster(broken ? cluster() : cluster({ kind: "Project", resource: deleting }), ago(0));
      checker.observeService(service({ projects: [{ id: "prj_1", name: "ns.p-0" }] }), ago(0));
      return violations.list();
    },
  },
  "nothing-left-after-delete": {
    story: "a deleted ServerOrder's first order is gone at the end, its growth order still billing",
    run(broken) {
      const so = serverOrder();
      const { checker, tracked, violations } = world(so);
      checker.observeCluster(
        cluster({ kind: "ServerOrder", resource: inCluster(so, { orderId: "ord_1" }) }),
        ago(20_000),
      );
      tracked(so).deleteRequestedAt = ago(10_000);
      checker.observeCluster(cluster(), ago(0));
      const growth = broken ? ["running"] : ["deprovisioning"];
      checker.finalCheck(service({ orders: [{ id: "ord_2", servers: growth }] }), ago(0));
      return violations.list();
    },
  },
  "orphan-keeps-object": {
    story: "a Project deleted with deletionPolicy Orphan takes its project with it",
    run(broken) {
      const p = project("p-0", "Orphan");
      const { checker, tracked, violations } = world(p);
      checker.observeCluster(
        cluster({ kind: "Project", resource: inCluster(p, { projectId: "prj_1" }) }),
        ago(20_000),
      );
      tracked(p).deleteRequestedAt = ago(10_000);
      checker.observeCluster(cluster(), ago(0));
      const left = broken ? [] : [{ id: "prj_1", name: "ns.p-0" }];
      checker.finalCheck(service({ projects: left }), ago(0));
      return violations.list();
    },
  },
  "order-within-maxHourlyCost": {
    story: "capped at two servers, a growth order adds a third while none of the first two leaves",
    run(broken) {
      const { checker, violations } = world(serverOrder({ count: 2, maxServers: 2 }));
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
      return violations.list();
    },
  },
  "order-only-when-approved": {
    story: "an order appears two minutes after approval was withdrawn",
    run(broken) {
      const so = serverOrder();
      const { checker, tracked, violations } = world(so);
      if (broken) tracked(so).approvals = [{ at: ago(120_000), approved: false }];
      checker.observeService(service({ orders: [{ id: "ord_1", servers: ["running"] }] }), ago(0));
      return violations.list();
    },
  },
  "spend-within-limit": {
    story: "room for two servers: a growth order of one is placed while both first servers still run",
    run(broken) {
      const so = serverOrder({ count: 2 });
      const { ledger, violations } = world(so);
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
      return violations.list();
    },
  },
  "servers-equal-count": {
    story: "a Ready ServerOrder of count 2 holds three working servers over two orders",
    run(broken) {
      const so = serverOrder({ count: 2 });
      const { checker, violations } = world(so);
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
      return violations.list();
    },
  },
  "annotation-echoed-within-a-minute": {
    story: "a replace-server value sent 61 s ago is not in status.lastHandledReplaceServer",
    run(broken) {
      const so = serverOrder();
      const { checker, tracked, violations } = world(so);
      tracked(so).echo = { value: "0xa@t1", at: ago(61_000) };
      const handled = broken ? "0xa@t0" : "0xa@t1";
      const status = { orderId: "ord_1", lastHandledReplaceServer: handled };
      checker.observeCluster(cluster({ kind: "ServerOrder", resource: inCluster(so, status) }), ago(0));
      return violations.list();
    },
  },
  "stalled-makes-few-calls": {
    story: "a Stalled ServerOrder calls about its order six times in a simulated minute",
    run(broken) {
      const so = serverOrder();
      const { ledger, tracked, violations } = world(so);
      tracked(so).last = inCluster(so, { orderId: "ORD_1" }, [stalled("ServerFailed")]);
      const paths = Array.from({ length: broken ? 6 : 5 }, () => "/servers/orders/ord_1");
      checkStalledCalls(ledger.created(), paths, 1, violations);
      return violations.list();
    },
  },
  "over-budget-stalls": {
    story: "a ServerOrder whose estimate is over maxHourlyCost ends Ready instead of Stalled OverBudget",
    run(broken) {
      const so = serverOrder({ overBudget: true });
      const { checker, violations } = world(so);
      const conditions = broken ? [ready] : [stalled("OverBudget")];
      checker.observeCluster(
        cluster({ kind: "ServerOrder", resource: inCluster(so, {}, conditions) }),
        ago(0),
      );
      checker.finalCheck(service(), ago(0));
      return violations.list();
    },
  },
  "ends-ready-or-stalled": {
    story: "a Project ends Stalled for a reason the README's troubleshooting table does not list",
    run(broken) {
      const p = project("p-0");
      const { checker, violations } = world(p);
      const conditions = [stalled(broken ? "SomethingWentWrong" : "InvalidSpec")];
      checker.observeCluster(
        cluster({ kind: "Project", resource: inCluster(p, { projectId: "prj_1" }, conditions) }),
        ago(0),
      );
      checker.finalCheck(service({ projects: [{ id: "prj_1", name: "ns.p-0" }] }), ago(0));
      return violations.list();
    },
  },
  "ready-matches-service": {
    story: "a renamed Project is Ready while the service still has the old name",
    run(broken) {
      const p = project("p-0");
      const { checker, tracked, violations } = world(p);
      tracked(p).spec.displayName = "ns.p-0.v2";
      checker.observeCluster(
        cluster({ kind: "Project", resource: inCluster(p, { projectId: "prj_1" }) }),
        ago(0),
      );
      const name = broken ? "ns.p-0" : "ns.p-0.v2";
      checker.finalCheck(service({ projects: [{ id: "prj_1", name }] }), ago(0));
      return violations.list();
    },
  },
  "resource-stays": {
    story: "a Project nobody deleted is no longer listed",
    run(broken) {
      const p = project("p-0");
      const { checker, violations } = world(p);
      const listed = inCluster(p, { projectId: "prj_1" });
      checker.observeCluster(broken ? cluster() : cluster({ kind: "Project", resource: listed }), ago(0));
      return violations.list();
    },
  },
  "no-key-in-logs": {
    story: "the operator logs a request's Authorization header",
    run(broken) {
      const { violations } = world();
      const token = "bk_live_0123456789abcdef";
      const header = broken ? `Bearer ${token}` : "Bearer <redacted>";
      checkLogText(
        `{"level":30,"msg":"calling"}\n{"level":50,"authorization":"${header}"}\n`,
        [token],
        violations,
      );
      return violations.list();
    },
  },
  "changes-held-while-held": {
    story: "a Namespace paused by berth.dev/paused: an app is updated with the namespace's key meanwhile",
    run(broken) {
      const { violations } = world();
      const at = (sec: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, sec)).toISOString();
      const call = (operation: string, sec: number, keyId: string, status = 200) => ({
        at: at(sec),
        path: "/v1/projects/p/apps/a",
        requestId: `req_${operation}_${sec}_${keyId}`,
        operation,
        status,
        keyId,
        replayed: false,
        dropped: false,
      });
      const records = [
        call("getApp", 12, "key_a"),
        call("provisionServers", 13, "key_a"),
        call("updateApp", 5, "key_a"),
        call("updateApp", 13, "key_b"),
        ...(broken ? [call("updateApp", 14, "key_a")] : []),
      ];
      const window = {
        namespace: "ns",
        what: "berth.dev/paused=true",
        fromSim: Date.parse(at(10)),
        toSim: Date.parse(at(20)),
        keyIds: new Set(["key_a"]),
      };
      checkHeldCalls(records, window, violations);
      return violations.list();
    },
  },
  converges: {
    story: "a Project is still Reconciling when the convergence timeout runs out",
    async run(broken) {
      const p = project("p-0");
      const { checker, violations } = world(p);
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
      return violations.list();
    },
  },
};

/** What each broken history reports: the subject, and the detail a person reads in the report. */
const reports: Record<InvariantName, { subject: string; detail: string | RegExp }> = {
  "one-object-per-resource": {
    subject: "ns/Project/p-0",
    detail: "2 objects: project prj_1 (ns.p-0), project prj_2 (ns.p-0)",
  },
  "one-manager-per-object": {
    subject: "prj_1",
    detail: "managed by ns/Project/p-0, ns/Project/p-0-copy at once",
  },
  "no-destroy-while-managed": {
    subject: "deleteProject prj_1",
    detail:
      /^deleteProject acted on prj_1 5\.\d s ago while ns\/Project\/p-0 managed it and was not being deleted$/,
  },
  "finalizer-held-while-object-exists": {
    subject: "ns/Project/p-0",
    detail:
      /^gone from the cluster \d+\.\d s ago \(deletionPolicy Delete\) while project prj_1 \(ns\.p-0\) still exists$/,
  },
  "no-release-while-active": {
    subject: "ns/ServerOrder/so",
    detail:
      /^gone from the cluster 5\.\d s ago \(deletionPolicy Delete\) while what it made is still active: order ord_2 \(completed, 1 of 1 servers billing\)$/,
  },
  "nothing-left-after-delete": {
    subject: "ns/ServerOrder/so",
    detail: "order ord_2 (completed, 1 of 1 servers billing) still exists",
  },
  "orphan-keeps-object": { subject: "ns/Project/p-0", detail: "prj_1 is gone from the service" },
  "order-within-maxHourlyCost": {
    subject: "ns/ServerOrder/so",
    detail:
      "its orders cost 0.16/h together, above spec.maxHourlyCost 0.10: order ord_1 (completed, 2 of 2 servers billing), order ord_2 (completed, 1 of 1 servers billing)",
  },
  "order-only-when-approved": {
    subject: "ns/ServerOrder/so",
    detail: "order ord_1 (1 servers) placed while spec.approved was false",
  },
  "spend-within-limit": {
    subject: "ns order ord_2",
    detail:
      "provisionServers req_2 placed ord_2 (1 × 0.0520/h) taking the namespace to at least 0.1560/h, above its SpendLimit 0.1040/h: order ord_2 0.0520, order ord_1 0.1040",
  },
  "servers-equal-count": {
    subject: "ns/ServerOrder/so",
    detail:
      "Ready with spec.count 2, but the service has 3: order ord_1 (completed, 2 of 2 servers billing), order ord_2 (completed, 2 of 2 servers billing)",
  },
  "annotation-echoed-within-a-minute": {
    subject: "ns/ServerOrder/so",
    detail:
      "berth.dev/replace-server 0xa@t1 not echoed after 61 s: generation 3; Ready=True/Succeeded (gen 3): ",
  },
  "stalled-makes-few-calls": {
    subject: "ns/ServerOrder/so",
    detail:
      "6 calls in 1.0 simulated minutes while Stalled: generation 3; Stalled=True/ServerFailed (gen 3): ",
  },
  "over-budget-stalls": {
    subject: "ns/ServerOrder/so",
    detail: "expected Stalled OverBudget, found generation 3; Ready=True/Succeeded (gen 3): ",
  },
  "ends-ready-or-stalled": {
    subject: "ns/Project/p-0",
    detail: "generation 3; Stalled=True/SomethingWentWrong (gen 3): ",
  },
  "ready-matches-service": {
    subject: "ns/Project/p-0",
    detail: "Ready, but the service has ns.p-0 instead of ns.p-0.v2",
  },
  "resource-stays": { subject: "ns/Project/p-0", detail: "disappeared from the cluster without a delete" },
  "changes-held-while-held": {
    subject: "ns berth.dev/paused=true",
    detail:
      "1 changing calls while berth.dev/paused=true held the namespace: updateApp /v1/projects/p/apps/a",
  },
  "no-key-in-logs": {
    subject: "key …cdef",
    detail: '1 log lines, e.g. {"level":50,"authorization":"Bearer <key>"}',
  },
  converges: {
    subject: "resources",
    detail:
      "1 resources unsettled after 90 s, e.g. ns/Project/p-0: generation 3; Ready=False/Succeeded (gen 3): ; Reconciling=True/Progressing (gen 3): ",
  },
};

describe("every invariant the chaos run reports", () => {
  it("has a history that breaks it and one that keeps it, and no history names an unlisted one", () => {
    const listed: readonly string[] = invariantNames;
    expect(invariantNames.filter((name) => histories[name] === undefined)).toEqual([]);
    expect(Object.keys(histories).filter((name) => !listed.includes(name))).toEqual([]);
  });

  describe.each(invariantNames)("%s", (name) => {
    it("is the only violation reported when a history breaks it, saying what and where", async () => {
      const found = await histories[name].run(true);
      expect(names(found), histories[name].story).toEqual([name]);
      const { subject, detail } = reports[name];
      expect(found.map((v) => ({ subject: v.subject, detail: v.detail }))).toEqual([
        { subject, detail: typeof detail === "string" ? detail : expect.stringMatching(detail) },
      ]);
    });

    it("is not reported when the same history keeps it", async () => {
      expect(names(await histories[name].run(false)), histories[name].story).toEqual([]);
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
