import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { instanceTypes } from "../../src/simulator/catalog.ts";
import type { Kind, Resource } from "./cluster.ts";
import { namespaces } from "./environment.ts";
import { Checker } from "./invariants.ts";
import { Ledger, type Tracked, Violations } from "./ledger.ts";
import { type PlannedResource, planLoad, resourceKey, signatureOf } from "./plan.ts";
import { Random } from "./random.ts";
import type { ServiceSnapshot } from "./service.ts";

const type = instanceTypes.find((t) => t.csp === "native" && t.gpu === 0);
if (type === undefined) throw new Error("no native instance type in the catalog");
const placement = { csp: "native", region: "eu-central", zone: "eu-central-1a", instanceType: type.id };

function orderResource(): PlannedResource {
  return {
    kind: "ServerOrder",
    namespace: "ns",
    name: "so",
    key: resourceKey("ns", "ServerOrder", "so"),
    policy: "Delete",
    spec: { ...placement, count: 2, approved: true },
    createAt: 0,
    deleteAt: undefined,
    updates: [],
    order: { signature: signatureOf(placement), costMicros: 0, maxMicros: 1e12, overBudget: false },
  };
}

/** A checker over one ServerOrder created a minute ago. */
function setUp() {
  const resource = orderResource();
  const ledger = new Ledger({ namespaces: [], resources: [resource] });
  const violations = new Violations(Date.now());
  const checker = new Checker(ledger, violations, new Set(["ServerFailed"]), Date.now() - 60_000);
  const tracked = ledger.get(resource.key) as Tracked;
  tracked.created = true;
  tracked.createdAt = Date.now() - 60_000;
  tracked.approvals.push({ at: 0, approved: true });
  const invariants = () => violations.list().map((v) => v.invariant);
  return { checker, tracked, invariants };
}

function cluster(
  status: Record<string, unknown>,
  annotations?: Record<string, string>,
): Map<Kind, Resource[]> {
  const resource = {
    metadata: {
      name: "so",
      namespace: "ns",
      uid: "u",
      generation: 3,
      ...(annotations ? { annotations } : {}),
    },
    status: {
      orderId: "ord_1",
      conditions: [{ type: "Ready", status: "True", reason: "Succeeded", observedGeneration: 3 }],
      ...status,
    },
  } as Resource;
  return new Map<Kind, Resource[]>([["ServerOrder", [resource]]]);
}

function service(orders: { id: string; servers: string[] }[]): ServiceSnapshot {
  return {
    projects: [],
    apps: [],
    grids: [],
    orders: orders.map((o) => ({ id: o.id, state: "completed", ...placement, count: o.servers.length })),
    servers: orders.flatMap((o) =>
      o.servers.map((state, i) => ({ address: `0x${o.id}${i}`, orderId: o.id, state })),
    ),
  };
}

describe("chaos invariants", () => {
  it("an order placed long after approval was withdrawn is a violation; one right after it may be in flight", () => {
    const { checker, tracked, invariants } = setUp();
    checker.observeService(service([{ id: "ord_1", servers: ["running", "running"] }]), Date.now() - 50_000);
    tracked.approvals.push({ at: Date.now() - 5_000, approved: false });
    checker.observeService(
      service([
        { id: "ord_1", servers: ["running", "running"] },
        { id: "ord_2", servers: ["running"] },
      ]),
      Date.now() - 40_000,
    );
    expect(invariants()).toEqual([]);
    checker.observeService(
      service([
        { id: "ord_1", servers: ["running", "running"] },
        { id: "ord_2", servers: ["running"] },
        { id: "ord_3", servers: ["running"] },
      ]),
      Date.now() - 1_000,
    );
    expect(invariants()).toEqual([]);
    tracked.approvals = [{ at: Date.now() - 120_000, approved: false }];
    checker.observeService(
      service([
        { id: "ord_1", servers: ["running", "running"] },
        { id: "ord_4", servers: ["running"] },
      ]),
      Date.now(),
    );
    expect(invariants()).toEqual(["order-only-when-approved"]);
  });

  it("a Ready ServerOrder holds as many servers as spec.count over all its orders, failed and leaving ones aside", () => {
    const grown = setUp();
    grown.checker.observeCluster(cluster({}), Date.now());
    grown.checker.finalCheck(
      service([
        { id: "ord_1", servers: ["running", "retiring"] },
        { id: "ord_2", servers: ["running"] },
      ]),
      Date.now(),
    );
    expect(grown.invariants()).toEqual([]);

    const twice = setUp();
    twice.checker.observeCluster(cluster({}), Date.now());
    twice.checker.finalCheck(
      service([
        { id: "ord_1", servers: ["running", "running"] },
        { id: "ord_2", servers: ["running", "failed"] },
      ]),
      Date.now(),
    );
    expect(twice.invariants()).toEqual(["servers-equal-count"]);
  });

  it("a replace-server value must be echoed within a minute, unless the order waits for approval", () => {
    const late = setUp();
    late.tracked.echo = { value: "0xa@t1", at: Date.now() - 61_000 };
    late.checker.observeCluster(cluster({ lastHandledReplaceServer: "0xa@t0" }), Date.now());
    expect(late.invariants()).toEqual(["annotation-echoed-within-a-minute"]);

    const echoed = setUp();
    echoed.tracked.echo = { value: "0xa@t1", at: Date.now() - 61_000 };
    echoed.checker.observeCluster(cluster({ lastHandledReplaceServer: "0xa@t1" }), Date.now());
    expect(echoed.invariants()).toEqual([]);
    expect(echoed.tracked.echo).toBeUndefined();

    const waiting = setUp();
    waiting.tracked.echo = { value: "0xa@t1", at: Date.now() - 61_000 };
    const awaiting = { type: "Ready", status: "False", reason: "AwaitingApproval", observedGeneration: 3 };
    waiting.checker.observeCluster(cluster({ conditions: [awaiting] }), Date.now());
    expect(waiting.invariants()).toEqual([]);
  });
});

describe("the chaos plan", () => {
  it("drives day 2: the short seeded run CI makes moves, retargets and ServerOrder changes; the full run every sort", () => {
    const sizes = { projects: 3, apps: 6, grids: 2, orders: 3 };
    const full = planLoad(
      Random.forPurpose(13, "load"),
      namespaces,
      { projects: 16, apps: 32, grids: 10, orders: 9 },
      960,
    );
    const whats = new Set(full.resources.flatMap((r) => r.updates.map((u) => u.what)));
    // The seed CI runs the short suite with.
    const ciSeed = Number(/--short --seed (\d+)/.exec(readFileSync(".ci/run", "utf8"))?.[1]);
    const short = planLoad(Random.forPurpose(ciSeed, "load"), namespaces, sizes, 150);
    const shortWhats = new Set(short.resources.flatMap((r) => r.updates.map((u) => u.what)));
    expect([...shortWhats]).toEqual(
      expect.arrayContaining([
        "App move",
        "App move retargeted",
        "ServerOrder approval withdrawn",
        "ServerOrder count grown",
        "ServerOrder hibernated",
        "ServerOrder replace-server annotation",
        "ServerOrder grid switched",
        "ServerOrder count shrunk",
        "a server failed at the service",
      ]),
    );
    expect([...whats].sort()).toEqual(
      expect.arrayContaining([
        "App move",
        "App move retargeted",
        "ServerOrder approval withdrawn",
        "ServerOrder count grown",
        "ServerOrder count shrunk",
        "ServerOrder hibernated",
        "ServerOrder replace-server annotation",
        "a server failed at the service",
      ]),
    );
  });
});
