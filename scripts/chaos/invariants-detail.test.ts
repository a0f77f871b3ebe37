import { describe, expect, it } from "vitest";
import type { Condition } from "./cluster.ts";
import { checkDestroys, DestroyLog, SimClock } from "./destroys.ts";
import {
  cluster,
  copyOf,
  generation,
  inCluster,
  project,
  ready,
  serverOrder,
  service,
  stalled,
  world,
} from "./invariant-fixtures.ts";
import { actionableReasons } from "./invariants.ts";
import type { PlannedResource } from "./plan.ts";
import type { RequestRecord } from "./simulator.ts";

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

describe("chaos invariants: copies, adopters and restores", () => {
  it("a copy still there at the end settles only Stalled AlreadyManaged", () => {
    const end = (conditions: Condition[]) => {
      const p = project("p-0");
      const copy = copyOf(p, "p-0-copy");
      const { checker, found } = world(p, copy);
      checker.observeCluster(
        cluster(
          { kind: "Project", resource: inCluster(p, { projectId: "prj_1" }) },
          { kind: "Project", resource: inCluster(copy, {}, conditions) },
        ),
        ago(0),
      );
      checker.finalCheck(service({ projects: [{ id: "prj_1", name: "ns.p-0" }] }), ago(0));
      return found();
    };
    expect(end([stalled("AlreadyManaged")])).toEqual([]);
    expect(end([ready])).toEqual(["ends-ready-or-stalled"]);
    expect(end([stalled("InvalidSpec")])).toEqual(["ends-ready-or-stalled"]);
  });

  it("a resource on its way back from a restore may be missing from a reading", () => {
    const p = project("p-0");
    const { checker, tracked, found } = world(p);
    tracked(p).restoringSince = ago(1_000);
    checker.observeCluster(cluster(), ago(0));
    expect(found()).toEqual([]);
    tracked(p).restoringSince = undefined;
    checker.observeCluster(cluster(), ago(0));
    expect(found()).toEqual(["resource-stays"]);
  });

  it("an App that asked to be stopped may stop its own app; one that never did may not", () => {
    const stops = (stoppedAsked: boolean) => {
      const app: PlannedResource = { ...project("app-0"), kind: "App", key: "ns/App/app-0" };
      const { checker, ledger, tracked, violations, found } = world(app);
      checker.observeCluster(
        cluster({ kind: "App", resource: inCluster(app, { appId: "a1" }) }),
        ago(20_000),
      );
      tracked(app).stoppedAsked = stoppedAsked;
      checkDestroys(
        [{ operation: "stopApp", id: "a1", at: ago(5_000), requestId: "r" }],
        ledger.created(),
        violations,
      );
      return found();
    };
    expect(stops(true)).toEqual([]);
    expect(stops(false)).toEqual(["no-destroy-while-managed"]);
  });
});

describe("the destroy log", () => {
  const record = (path: string, operation: string, more: Partial<RequestRecord> = {}): RequestRecord => ({
    at: new Date(2_000_000).toISOString(),
    path,
    requestId: `req-${path}-${operation}`,
    operation,
    status: 202,
    keyId: "k",
    replayed: false,
    dropped: false,
    ...more,
  });

  it("takes the object's ID from the path and the wall-clock time from the simulator's clock", () => {
    const clock = new SimClock(20);
    clock.sample(1_000, 1_000_000);
    const log = new DestroyLog();
    log.add(
      [
        record("/v1/projects/p1", "deleteProject"),
        record("/v1/projects/p1/apps/a1", "deleteApp"),
        record("/v1/projects/p1/apps/a2/stop", "stopApp"),
        record("/v1/grids/g1", "deleteGrid", { status: 503, dropped: true }),
      ],
      clock,
    );
    expect(log.all().map((d) => [d.operation, d.id, d.at])).toEqual([
      ["deleteProject", "p1", 51_000],
      ["deleteApp", "a1", 51_000],
      ["stopApp", "a2", 51_000],
      ["deleteGrid", "g1", 51_000],
    ]);
  });

  it("leaves out replays, refusals and calls that end nothing", () => {
    const clock = new SimClock(1);
    clock.sample(0, 0);
    const log = new DestroyLog();
    log.add(
      [
        record("/v1/projects/p1", "deleteProject", { replayed: true }),
        record("/v1/projects/p1/apps/a1", "deleteApp", { status: 409 }),
        record("/v1/projects/p1", "getProject"),
      ],
      clock,
    );
    expect(log.all()).toEqual([]);
  });
});

describe("the Stalled reasons a person can act on", () => {
  it("are those docs/troubleshooting/reasons.yaml lists under Stalled first", () => {
    const reasons = actionableReasons();
    for (const reason of [
      "AlreadyManaged",
      "InvalidSpec",
      "OverBudget",
      "SpendLimitExceeded",
      "DependentsExist",
    ])
      expect(reasons, reason).toContain(reason);
    // Stalled only when the service refuses for good; Reconciling first otherwise.
    for (const reason of ["HostingError", "Progressing", "DeleteHeld", "Succeeded", "Deferred"])
      expect(reasons, reason).not.toContain(reason);
  });

  it("take only an entry's first condition, and a source without any is an error", () => {
    const entry = (conditions: ("Stalled" | "Reconciling" | "Ready")[]) => ({
      conditions,
      means: "m",
      do: "d",
    });
    const source = (reasons: Record<string, ReturnType<typeof entry>>) => ({
      reasons,
      startup: { operator: {}, controlPlane: {} },
      notes: [],
    });
    const reasons = actionableReasons(
      source({ A: entry(["Stalled"]), B: entry(["Reconciling", "Stalled"]), C: entry(["Stalled", "Ready"]) }),
    );
    expect([...reasons]).toEqual(["A", "C"]);
    expect(() => actionableReasons(source({ B: entry(["Reconciling", "Stalled"]) }))).toThrow(
      "no Stalled reasons found in docs/troubleshooting/reasons.yaml",
    );
  });

  it("settle a resource Stalled for one of them, at its generation; one Stalled for another does not", () => {
    const end = (conditions: Condition[]) => {
      const p = project("p-0");
      const { checker } = world(p);
      checker.observeCluster(
        cluster({ kind: "Project", resource: inCluster(p, { projectId: "prj_1" }, conditions) }),
        ago(0),
      );
      return checker.unsettled();
    };
    expect(end([stalled("CredentialsRejected")])).toEqual([]);
    expect(end([stalled("HostingError")])).toHaveLength(1);
    expect(end([{ ...stalled("CredentialsRejected"), observedGeneration: generation - 1 }])).toHaveLength(1);
  });
});
