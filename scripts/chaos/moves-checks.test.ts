import { describe, expect, it } from "vitest";
import { checkDestroys } from "./destroys.ts";
import { changes } from "./holds.ts";
import {
  cluster,
  copyOf,
  inCluster,
  project,
  ready,
  serverOrder,
  service,
  stalled,
  world,
} from "./invariant-fixtures.ts";
import type { RequestRecord } from "./simulator.ts";

// What the checker must see of the moves of issue 44: adoptions by growth and replacement order
// IDs, policy switches, and the objects a person made while a create was held.

const now = () => Date.now();

describe("one-manager-per-object over the moves", () => {
  it("sees a ServerOrder that adopted another's growth or replacement order, unless it was refused", () => {
    for (const held of [
      { growthOrders: [{ id: "ord_2" }] },
      { replacements: [{ address: "0x1", orderId: "ord_2" }] },
    ]) {
      const source = serverOrder();
      const adopter = copyOf(source, "so-0-adopt", "adopter");
      const take = (conditions = [ready]) => {
        const { checker, found } = world(source, adopter);
        checker.observeCluster(
          cluster(
            { kind: "ServerOrder", resource: inCluster(source, { orderId: "ord_1", ...held }) },
            { kind: "ServerOrder", resource: inCluster(adopter, { orderId: "ord_2" }, conditions) },
          ),
          now(),
        );
        return found();
      };
      expect(take()).toEqual(["one-manager-per-object"]);
      expect(take([stalled("AlreadyManaged")])).toEqual([]);
    }
  });

  it("does not count an Observe-only resource as a manager, and counts it once switched to [*]", () => {
    const source = project("p-0");
    const imported = copyOf(source, "p-0-import", "adopter");
    const take = (policies: string[]) => {
      const { checker, found } = world(source, imported);
      const observer = inCluster(imported, { projectId: "prj_1" });
      observer.spec = { managementPolicies: policies };
      checker.observeCluster(
        cluster(
          { kind: "Project", resource: inCluster(source, { projectId: "prj_1" }) },
          { kind: "Project", resource: observer },
        ),
        now(),
      );
      return found();
    };
    expect(take(["Observe"])).toEqual([]);
    expect(take(["*"])).toEqual(["one-manager-per-object"]);
  });
});

describe("a person's object made while a create was held", () => {
  it("is no resource's at the service, and a resource holding it in status manages another's object", () => {
    const held = project("held-0");
    const take = (statusId: string) => {
      const { checker, ledger, found } = world(held);
      ledger.foreign.set("prj_person", "the person's ns.held-0");
      checker.observeCluster(
        cluster({ kind: "Project", resource: inCluster(held, { projectId: statusId }) }),
        now(),
      );
      const projects = [
        { id: "prj_person", name: "ns.held-0" },
        { id: "prj_own", name: "ns.held-0" },
      ];
      checker.observeService(service({ projects }), now());
      return found();
    };
    expect(take("prj_own")).toEqual([]);
    expect(take("prj_person")).toEqual(["one-manager-per-object"]);
  });

  it("may not be deleted by berth", () => {
    const { violations, found } = world();
    const destroy = { operation: "deleteProject", id: "prj_person", at: now(), requestId: "req_1" };
    checkDestroys([destroy], [], violations, new Map());
    expect(found()).toEqual([]);
    checkDestroys([destroy], [], violations, new Map([["prj_person", "the person's ns.held-0"]]));
    expect(found()).toEqual(["no-destroy-while-managed"]);
  });
});

describe("what a hold holds", () => {
  const record = (operation: string | null, status = 200): RequestRecord => ({
    at: new Date().toISOString(),
    path: "/v1/x",
    requestId: "r",
    operation,
    status,
    keyId: "k",
    replayed: false,
    dropped: false,
  });
  it("counts every call that changes something, and neither reads nor estimates", () => {
    for (const op of ["updateApp", "createProject", "deleteGrid", "startApp", "powerServers", "stopApp"])
      expect(changes(record(op, 500))).toBe(true);
    expect(changes(record("provisionServers", 202))).toBe(true);
    expect(changes(record("provisionServers", 200))).toBe(false);
    for (const op of ["getApp", "listProjects", null]) expect(changes(record(op))).toBe(false);
  });
});
