// Each path of each invariant, and each condition that excuses a resource: a checker that drops
// one of them goes blind to a violation the chaos run may produce (mutation testing found these).
import { describe, expect, it } from "vitest";
import type { Condition } from "./cluster.ts";
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
import { summary } from "./invariants.ts";
import type { PlannedResource } from "./plan.ts";
import type { ServiceSnapshot } from "./service.ts";

const ago = (ms: number) => Date.now() - ms;
const details = (w: ReturnType<typeof world>) =>
  w.violations.list().map((v) => [v.invariant, v.subject, v.detail]);

function app(name: string): PlannedResource {
  return { ...project(name), kind: "App", key: `ns/App/${name}`, spec: { image: "nginx:2" } };
}

function grid(name: string): PlannedResource {
  return { ...project(name), kind: "Grid", key: `ns/Grid/${name}`, spec: {} };
}

/** A service reading with apps and grids as well. */
function withApps(
  snapshot: ServiceSnapshot,
  apps: { id: string; name: string; image?: string }[],
  grids: { id: string; name: string }[] = [],
): ServiceSnapshot {
  return {
    ...snapshot,
    apps: apps.map((a) => ({
      id: a.id,
      name: a.name,
      projectId: "prj_1",
      ...(a.image === undefined ? {} : { config: { image: a.image } }),
    })),
    grids,
  };
}

describe("one object per resource, from the cluster's side", () => {
  it("reports a status ID that changed, once, and keeps every ID seen", () => {
    const p = project("p-0");
    const w = world(p);
    const at = (id: string, readAt: number) =>
      w.checker.observeCluster(
        cluster({ kind: "Project", resource: inCluster(p, { projectId: id }) }),
        readAt,
      );
    const first = ago(30_000);
    at("prj_1", first);
    at("prj_1", ago(20_000));
    expect(details(w)).toEqual([]);
    at("prj_2", ago(10_000));
    expect(details(w)).toEqual([
      ["one-object-per-resource", "ns/Project/p-0", "status ID changed from prj_1 to prj_2"],
    ]);
    expect(w.tracked(p).ids).toEqual(["prj_1", "prj_2"]);
    expect(w.tracked(p).idSeenAt).toBe(first);
  });

  it("leaves alone a resource created after the reading began", () => {
    const p = project("p-0");
    const w = world(p);
    w.tracked(p).createdAt = ago(0);
    w.checker.observeCluster(cluster(), ago(1_000));
    expect(details(w)).toEqual([]);
    expect(w.tracked(p).last).toBeUndefined();
  });
});

describe("one manager per object", () => {
  it("names every resource whose status holds the object, but not one that refused it", () => {
    const p = project("p-0");
    const copy = copyOf(p, "p-0-copy");
    const adopter = copyOf(p, "p-0-adopter", "adopter");
    const w = world(p, copy, adopter);
    w.checker.observeCluster(
      cluster(
        { kind: "Project", resource: inCluster(p, { projectId: "prj_1" }) },
        { kind: "Project", resource: inCluster(copy, { projectId: "prj_1" }, [stalled("AlreadyManaged")]) },
        { kind: "Project", resource: inCluster(adopter, { projectId: "prj_1" }, [stalled("InvalidSpec")]) },
      ),
      ago(0),
    );
    expect(details(w)).toEqual([
      ["one-manager-per-object", "prj_1", "managed by ns/Project/p-0, ns/Project/p-0-adopter at once"],
    ]);
  });
});

describe("one object per resource, from the service's side", () => {
  it("reports an object no resource accounts for: a name of no planned resource, or of none at all", () => {
    const w = world(project("p-0"));
    w.checker.observeService(
      withApps(
        service({
          projects: [
            { id: "prj_1", name: "ns.p-0" },
            { id: "prj_9", name: "ns.p-9" },
          ],
        }),
        [{ id: "app_1", name: "stray" }],
        [{ id: "grd_1", name: "ns.g-0" }],
      ),
      ago(0),
    );
    const stray = "an object at the service no resource accounts for";
    expect(details(w)).toEqual([
      ["one-object-per-resource", "project prj_9 (ns.p-9)", stray],
      ["one-object-per-resource", "app app_1 (stray)", stray],
      ["one-object-per-resource", "grid grd_1 (ns.g-0)", stray],
    ]);
    expect(w.checker.seen.Project).toEqual(new Set(["prj_1", "prj_9"]));
    expect(w.checker.seen.App).toEqual(new Set(["app_1"]));
    expect(w.checker.seen.Grid).toEqual(new Set(["grd_1"]));
  });

  it("reports an order of a placement no ServerOrder asks for", () => {
    const w = world(project("p-0"));
    const snapshot = service({ orders: [{ id: "ord_1", servers: ["running"] }] });
    w.checker.observeService(snapshot, ago(0));
    expect(details(w)).toEqual([
      [
        "one-object-per-resource",
        "order ord_1 (completed, 1 of 1 servers billing)",
        "an object at the service no resource accounts for",
      ],
    ]);
  });

  it("attributes versioned names (a rename) to their resource, and an App's and a Grid's objects to theirs", () => {
    const w = world(project("p-0"), app("a-0"), grid("g-0"));
    w.checker.observeService(
      withApps(
        service({ projects: [{ id: "prj_1", name: "ns.p-0.v2" }] }),
        [{ id: "app_1", name: "ns.a-0" }],
        [{ id: "grd_1", name: "ns.g-0" }],
      ),
      ago(0),
    );
    expect(details(w)).toEqual([]);
  });

  it("at the end: no object at the service for a resource that should have one", () => {
    const p = project("p-0");
    const w = world(p);
    w.checker.observeCluster(
      cluster({ kind: "Project", resource: inCluster(p, { projectId: "prj_1" }) }),
      ago(0),
    );
    w.checker.finalCheck(service(), ago(0));
    expect(details(w)).toEqual([
      [
        "one-object-per-resource",
        "ns/Project/p-0",
        "no object at the service (status ID prj_1); generation 3; Ready=True/Succeeded (gen 3): ",
      ],
    ]);
  });

  it("at the end: a status ID other than the object the service holds for it", () => {
    const p = project("p-0");
    const w = world(p);
    w.checker.observeCluster(cluster({ kind: "Project", resource: inCluster(p, {}) }), ago(0));
    w.checker.finalCheck(service({ projects: [{ id: "prj_2", name: "ns.p-0" }] }), ago(0));
    expect(details(w)).toEqual([
      [
        "one-object-per-resource",
        "ns/Project/p-0",
        "status ID none, but the service holds project prj_2 (ns.p-0)",
      ],
    ]);
  });

  it("at the end: a ServerOrder whose status names none of its orders, though it holds several", () => {
    const so = serverOrder({ count: 2 });
    const w = world(so);
    w.checker.observeCluster(
      cluster({
        kind: "ServerOrder",
        resource: inCluster(so, { orderId: "ord_1" }, [stalled("ServerFailed")]),
      }),
      ago(0),
    );
    const orders = [
      { id: "ord_2", servers: ["running"] },
      { id: "ord_3", servers: ["running"] },
    ];
    w.checker.finalCheck(service({ orders }), ago(0));
    expect(details(w).map(([invariant, , detail]) => [invariant, detail])).toEqual([
      [
        "one-object-per-resource",
        "status ID ord_1, but the service holds order ord_2 (completed, 1 of 1 servers billing), order ord_3 (completed, 1 of 1 servers billing)",
      ],
    ]);
  });
});

describe("servers equal count", () => {
  const counted = (conditions: Condition[], servers: string[]) => {
    const so = serverOrder({ count: 2 });
    const w = world(so);
    w.checker.observeCluster(
      cluster({ kind: "ServerOrder", resource: inCluster(so, { orderId: "ord_1" }, conditions) }),
      ago(0),
    );
    w.checker.finalCheck(service({ orders: [{ id: "ord_1", servers }] }), ago(0));
    return w.found();
  };

  it("holds only a ServerOrder Ready for the generation it has now", () => {
    expect(counted([ready], ["running"])).toEqual(["servers-equal-count"]);
    expect(counted([{ ...ready, status: "False", reason: "Progressing" }], ["running"])).toEqual([
      "ends-ready-or-stalled",
    ]);
    expect(counted([{ ...ready, observedGeneration: generation - 1 }], ["running"])).toEqual([
      "ends-ready-or-stalled",
    ]);
  });

  it("counts neither failed servers nor those leaving", () => {
    expect(counted([ready], ["running", "failed"])).toEqual(["servers-equal-count"]);
    expect(counted([ready], ["running", "deprovisioning"])).toEqual(["servers-equal-count"]);
    expect(counted([ready], ["running", "hibernated"])).toEqual([]);
  });
});

describe("ends Ready or Stalled", () => {
  const end = (resource: PlannedResource, conditions: Condition[], status: Record<string, unknown> = {}) => {
    const w = world(resource);
    const listed = inCluster(resource, { projectId: "prj_1", ...status }, conditions);
    w.checker.observeCluster(cluster({ kind: "Project", resource: listed }), ago(0));
    w.checker.finalCheck(service({ projects: [{ id: "prj_1", name: "ns.p-0" }] }), ago(0));
    return details(w).map(([invariant, , detail]) => [invariant, detail]);
  };

  it("does not take Ready or Stalled for an older generation", () => {
    const old = { observedGeneration: generation - 1 };
    expect(end(project("p-0"), [{ ...ready, ...old }])).toEqual([
      ["ends-ready-or-stalled", "generation 3; Ready=True/Succeeded (gen 2): "],
    ]);
    expect(end(project("p-0"), [{ ...stalled("InvalidSpec"), ...old }])).toHaveLength(1);
  });

  it("reads the generation from status when the condition has none", () => {
    const { observedGeneration: _, ...bare } = ready;
    expect(end(project("p-0"), [bare], { observedGeneration: generation })).toEqual([]);
    expect(end(project("p-0"), [bare], { observedGeneration: generation - 1 })).toHaveLength(1);
    const { observedGeneration: __, ...bareStalled } = stalled("InvalidSpec");
    expect(end(project("p-0"), [bareStalled], { observedGeneration: generation })).toEqual([]);
  });

  it("needs Stalled to be True", () => {
    expect(end(project("p-0"), [{ ...stalled("InvalidSpec"), status: "False" }])).toHaveLength(1);
  });

  it("finds a resource missing from the cluster, or deleted and still there", () => {
    const p = project("p-0");
    const w = world(p);
    w.checker.finalCheck(service(), ago(0));
    expect(details(w)).toEqual([
      ["ends-ready-or-stalled", "ns/Project/p-0", "not in the cluster"],
      ["one-object-per-resource", "ns/Project/p-0", "no object at the service (status ID none); absent"],
    ]);
    const q = project("p-1");
    const v = world(q);
    v.tracked(q).deleteRequestedAt = ago(5_000);
    v.checker.observeCluster(cluster({ kind: "Project", resource: inCluster(q, {}, [ready], true) }), ago(0));
    v.checker.finalCheck(service(), ago(0));
    expect(details(v)).toEqual([
      [
        "ends-ready-or-stalled",
        "ns/Project/p-1",
        "deleted but still present: deleting; generation 3; Ready=True/Succeeded (gen 3): ",
      ],
    ]);
    expect(v.checker.unsettled()).toEqual([
      "ns/Project/p-1: deleted but still present: deleting; generation 3; Ready=True/Succeeded (gen 3): ",
    ]);
  });

  it("takes a copy's refusal only for its generation", () => {
    const p = project("p-0");
    const copy = copyOf(p, "p-0-copy");
    const w = world(p, copy);
    const old = { ...stalled("AlreadyManaged"), observedGeneration: generation - 1 };
    w.checker.observeCluster(
      cluster(
        { kind: "Project", resource: inCluster(p, { projectId: "prj_1" }) },
        { kind: "Project", resource: inCluster(copy, {}, [old]) },
      ),
      ago(0),
    );
    expect(w.checker.unsettled()).toEqual([
      "ns/Project/p-0-copy: a copy of ns/Project/p-0, expected Stalled AlreadyManaged: generation 3; Stalled=True/AlreadyManaged (gen 2): ",
    ]);
  });
});

describe("over budget stalls", () => {
  it("wants Stalled True for the reason OverBudget", () => {
    const end = (conditions: Condition[]) => {
      const so = serverOrder({ overBudget: true });
      const w = world(so);
      w.checker.observeCluster(
        cluster({ kind: "ServerOrder", resource: inCluster(so, {}, conditions) }),
        ago(0),
      );
      w.checker.finalCheck(service(), ago(0));
      return w.found();
    };
    expect(end([stalled("OverBudget")])).toEqual([]);
    expect(end([stalled("InvalidSpec")])).toEqual(["over-budget-stalls"]);
    expect(end([{ ...stalled("OverBudget"), status: "False" }])).toEqual([
      "ends-ready-or-stalled",
      "over-budget-stalls",
    ]);
  });
});

describe("ready matches the service", () => {
  const end = (resource: PlannedResource, conditions: Condition[], image: string) => {
    const w = world(resource);
    w.checker.observeCluster(
      cluster({ kind: "App", resource: inCluster(resource, { appId: "app_1" }, conditions) }),
      ago(0),
    );
    w.checker.finalCheck(withApps(service(), [{ id: "app_1", name: "ns.a-0", image }]), ago(0));
    return details(w).map(([invariant, , detail]) => [invariant, detail]);
  };

  it("compares a Ready App's image, and nothing of one not Ready", () => {
    expect(end(app("a-0"), [ready], "nginx:1")).toEqual([
      ["ready-matches-service", "Ready, but the service has nginx:1 instead of nginx:2"],
    ]);
    expect(end(app("a-0"), [ready], "nginx:2")).toEqual([]);
    expect(end(app("a-0"), [stalled("InvalidSpec")], "nginx:1")).toEqual([]);
  });
});

describe("after a delete", () => {
  /** A resource deleted 10 s ago and gone from the cluster 5 s ago, then the last reading. */
  function deleted(resource: PlannedResource, status: Record<string, unknown>, snapshot: ServiceSnapshot) {
    const w = world(resource);
    const kind = resource.kind;
    w.checker.observeCluster(cluster({ kind, resource: inCluster(resource, status) }), ago(20_000));
    w.tracked(resource).deleteRequestedAt = ago(10_000);
    const goneReadAt = ago(5_000);
    w.checker.observeCluster(cluster(), goneReadAt);
    w.checker.observeCluster(cluster(), ago(1_000));
    w.checker.finalCheck(snapshot, ago(0));
    return { ...w, goneReadAt };
  }

  it("records when the resource left, once", () => {
    const p = project("p-0");
    const w = deleted(p, { projectId: "prj_1" }, service());
    expect(w.tracked(p).goneAt).toBe(w.goneReadAt);
    expect(details(w)).toEqual([]);
  });

  it("does not count a delete sent after the reading began", () => {
    const p = project("p-0");
    const w = world(p);
    w.tracked(p).deleteRequestedAt = ago(0);
    w.checker.observeCluster(cluster(), ago(1_000));
    expect(w.tracked(p).goneAt).toBeUndefined();
  });

  it("lets an Orphan resource leave its object, and wants nothing gone", () => {
    const p = project("p-0", "Orphan");
    const w = deleted(p, { projectId: "prj_1" }, service({ projects: [{ id: "prj_1", name: "ns.p-0" }] }));
    expect(details(w)).toEqual([]);
  });

  it("expects nothing of an Orphan resource that never had an object", () => {
    const p = project("p-0", "Orphan");
    const w = deleted(p, {}, service());
    expect(details(w)).toEqual([]);
  });

  it("blames only what the service listed before the release for still being active", () => {
    const so = serverOrder();
    const w = world(so);
    w.checker.observeCluster(
      cluster({ kind: "ServerOrder", resource: inCluster(so, { orderId: "ord_1" }) }),
      ago(20_000),
    );
    w.tracked(so).deleteRequestedAt = ago(10_000);
    w.checker.observeCluster(cluster(), ago(5_000));
    // A growth order that landed after the release: nothing-left-after-delete's at the end, not this.
    w.checker.observeService(service({ orders: [{ id: "ord_2", servers: ["running"] }] }), ago(1_000));
    expect(w.found()).toEqual([]);
  });

  it("takes a pending order (no servers yet) as still active", () => {
    const so = serverOrder();
    const w = deleted(
      so,
      { orderId: "ord_1" },
      service({ orders: [{ id: "ord_1", state: "pending", count: 2, servers: [] }] }),
    );
    expect(w.found()).toEqual(["finalizer-held-while-object-exists", "nothing-left-after-delete"]);
  });
});

describe("the replace-server echo", () => {
  const echo = (found: (so: PlannedResource) => ReturnType<typeof inCluster>, sentAgo: number) => {
    const so = serverOrder();
    const w = world(so);
    w.tracked(so).echo = { value: "0xa@t1", at: ago(sentAgo) };
    w.checker.observeCluster(cluster({ kind: "ServerOrder", resource: found(so) }), ago(0));
    return w;
  };

  it("is not due within a minute", () => {
    expect(echo((so) => inCluster(so, { orderId: "ord_1" }), 59_000).found()).toEqual([]);
  });

  it("waits while the resource is being deleted or Stalled, and the minute starts again after", () => {
    for (const found of [
      (so: PlannedResource) => inCluster(so, { orderId: "ord_1" }, [ready], true),
      (so: PlannedResource) => inCluster(so, { orderId: "ord_1" }, [stalled("ServerFailed")]),
    ]) {
      const w = echo(found, 120_000);
      expect(w.found()).toEqual([]);
      expect(w.violations.list()).toEqual([]);
      const so = w.ledger.all()[0];
      expect(so?.echo?.at).toBeGreaterThan(ago(1_000));
    }
  });
});

describe("the cost cap", () => {
  it("allows the orders to cost exactly maxHourlyCost, and counts a pending order at its count", () => {
    const cost = (orders: { id: string; state?: string; count?: number; servers: string[] }[]) => {
      const w = world(serverOrder({ count: 2, maxServers: 2 }));
      w.checker.observeService(service({ orders }), ago(0));
      return w.found();
    };
    expect(cost([{ id: "ord_1", servers: ["running", "running"] }])).toEqual([]);
    expect(cost([{ id: "ord_1", state: "pending", count: 3, servers: [] }])).toEqual([
      "order-within-maxHourlyCost",
    ]);
    expect(
      cost([{ id: "ord_1", state: "provisioning", count: 1, servers: ["running", "running", "running"] }]),
    ).toEqual(["order-within-maxHourlyCost"]);
  });
});

describe("orders only when approved", () => {
  it("checks each order once, when it first appears", () => {
    const so = serverOrder();
    const w = world(so);
    const snapshot = service({ orders: [{ id: "ord_1", servers: ["running"] }] });
    w.checker.observeService(snapshot, ago(10_000));
    w.tracked(so).approvals = [{ at: ago(120_000), approved: false }];
    w.checker.observeService(snapshot, ago(0));
    expect(w.found()).toEqual([]);
  });

  it("forgives an order placed up to 20 s before the last reading began, not more", () => {
    const run = (withdrawnAgo: number) => {
      const so = serverOrder();
      const w = world(so);
      w.checker.observeService(service(), ago(60_000));
      w.tracked(so).approvals = [
        { at: ago(200_000), approved: true },
        { at: ago(withdrawnAgo), approved: false },
      ];
      w.checker.observeService(service({ orders: [{ id: "ord_1", servers: ["running"] }] }), ago(0));
      return w.found();
    };
    expect(run(70_000)).toEqual([]);
    expect(run(90_000)).toEqual(["order-only-when-approved"]);
  });
});

describe("a resource's conditions in one line", () => {
  it("names Ready, Reconciling and Stalled, whether it is being deleted, and what is unknown", () => {
    const p = project("p-0");
    const listed = inCluster(
      p,
      {},
      [
        { type: "Synced", status: "True" },
        { type: "Reconciling", status: "True", reason: "Progressing", message: "creating" },
        { type: "Stalled", status: "False" },
      ],
      true,
    );
    expect(summary(listed)).toBe(
      "deleting; generation 3; Reconciling=True/Progressing (gen ?): creating; Stalled=False/ (gen ?): ",
    );
    const bare = { metadata: { name: "p", namespace: "ns", uid: "u" } };
    expect(summary(bare)).toBe("generation ?; no conditions");
    expect(summary(undefined)).toBe("absent");
  });
});
