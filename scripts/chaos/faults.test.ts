import { describe, expect, it } from "vitest";
import { createLogger } from "../../src/telemetry/logger.ts";
import {
  FaultDriver,
  type FaultEvent,
  type FaultTargets,
  steadyFaultName,
  steadyFaults,
  tallyFaults,
  tallySteady,
} from "./faults.ts";
import { Ledger } from "./ledger.ts";
import { verdict } from "./verdict.ts";

/**
 * A world whose simulator refuses to lift fault rules with the given id, and whose rules each hit
 * the requests `hits` gives them (none by default).
 */
function targets(unremovable: string, hits: Record<string, number> = {}): FaultTargets {
  let rules = 0;
  return {
    simulator: {
      addFault: async () => `rule-${++rules}`,
      removeFault: async (id) => {
        if (id === unremovable) throw new Error(`fault rule ${id} not found`);
      },
      faultHits: async () => new Map(Object.entries(hits)),
      addKey: async (userId) => ({ id: "key", token: "token", userId }),
      revokeKey: async () => {},
    },
    cluster: {
      deleteSecret: async () => {},
      clearSecretFinalizers: async () => {},
      secretState: async () => "absent",
      putSecret: async () => {},
    },
    userId: "u1",
    otherUserId: "u2",
    secrets: new Map(),
    tokens: [],
    restartControlPlane: async () => {},
    ownership: {
      cluster: {
        get: async () => undefined,
        apply: async () => {},
        delete: async () => {},
        patchSpec: async () => {},
      },
      ledger: new Ledger({ namespaces: [], resources: [] }),
    },
    logger: createLogger({ level: "silent" }),
  };
}

const storm = (at: number): FaultEvent => ({
  at,
  type: "storm",
  seconds: 0.01,
  retryAfterSec: 1,
  simulatedSec: 20,
});

describe("the fault driver", () => {
  it("counts a fault as fired only once it was applied and undone, and records why others were not", async () => {
    const driver = new FaultDriver(targets("rule-2", { "rule-1": 4, "rule-2": 1 }));
    const events: FaultEvent[] = [
      storm(0),
      storm(0.01),
      { at: 0.02, type: "secretDeleted", namespace: "ns", name: "team-b", seconds: 0.01, force: false },
      { at: 0.03, type: "controlPlaneRestart" },
    ];
    await driver.run(events, Date.now());
    expect(driver.fired).toEqual({ ...tallyFaults([]), storm: 1, controlPlaneRestart: 1 });
    expect([...driver.failures].sort((a, b) => a.at - b.at)).toEqual([
      { type: "storm", at: 0.01, error: "Error: fault rule rule-2 not found" },
      { type: "secretDeleted", at: 0.02, error: "Error: no credentials Secret ns/team-b to act on" },
    ]);
  });
});

describe("a storm or latency spike", () => {
  const spike = (onlyCreates: boolean): FaultEvent => ({
    at: 0,
    type: "latency",
    seconds: 0.01,
    latencyMs: 3000,
    onlyCreates,
  });

  it("fires only when a request hit one of its rules while they held", async () => {
    const idle = new FaultDriver(targets("none"));
    await idle.run([storm(0), spike(true)], Date.now());
    expect(idle.fired).toEqual(tallyFaults([]));
    expect(idle.failures.map((f) => [f.type, f.error])).toEqual([
      ["storm", "Error: no request hit it in 0.0 s"],
      ["latency", "Error: no request hit it in 0.0 s"],
    ]);
    // The create spike's third rule (createGrid) is the only one a request hit.
    const busy = new FaultDriver(targets("none", { "rule-1": 7, "rule-4": 1 }));
    await busy.run([storm(0), spike(true)], Date.now());
    expect(busy.fired).toEqual({ ...tallyFaults([]), storm: 1, latency: 1 });
  });

  it("fails the run when it never hit", async () => {
    const events = [storm(0)];
    const driver = new FaultDriver(targets("none"));
    await driver.run(events, Date.now());
    const outcome = verdict({
      violations: [],
      kills: { planned: 1, fired: 1 },
      faults: {
        planned: tallyFaults(events),
        fired: driver.fired,
        failures: driver.failures,
        steady: [{ name: "500 on every operation", hits: 9 }],
      },
      operator: { unexpectedExits: [] },
      checks: { passes: 3, skipped: [], matched: {} },
      loadFailed: 0,
      problems: [],
    });
    expect(outcome).toEqual({
      passed: false,
      failures: [
        "fault storm (planned at 0.0 s) failed: Error: no request hit it in 0.0 s",
        "fault storm: 0 fired of 1 planned",
      ],
    });
  });
});

describe("the steady faults", () => {
  it("are named by what they do, each create's drop and each 5xx on its own", () => {
    expect(steadyFaults().map(steadyFaultName)).toEqual([
      ...["createProject", "createApp", "createGrid", "provisionServers"].flatMap((operation) => [
        `act-then-drop on ${operation}`,
        `act-then-drop on ${operation}`,
      ]),
      "500 on every operation",
      "502 on every operation",
      "503 on every operation",
    ]);
  });

  it("drop each kind's first create for certain, and 5 % of the others", () => {
    const drops = steadyFaults().filter((rule) => rule.operation === "createGrid");
    expect(drops).toEqual([
      { operation: "createGrid", dropResponse: true, forgetIdempotency: true, times: 1 },
      { operation: "createGrid", dropResponse: true, forgetIdempotency: true, probability: 0.05 },
    ]);
  });

  it("are tallied by name over their rules: a fault hit by either of its rules was hit", () => {
    const added = [
      { name: "act-then-drop on createGrid", id: "f1" },
      { name: "act-then-drop on createGrid", id: "f2" },
      { name: "act-then-drop on createApp", id: "f3" },
      { name: "act-then-drop on createApp", id: "f4" },
      { name: "500 on every operation", id: "f5" },
    ];
    const hits = new Map([
      ["f1", 1],
      ["f2", 3],
      ["f5", 40],
    ]);
    expect(tallySteady(added, hits)).toEqual([
      { name: "act-then-drop on createGrid", hits: 4 },
      { name: "act-then-drop on createApp", hits: 0 },
      { name: "500 on every operation", hits: 40 },
    ]);
  });
});

describe("the slow spending fault", () => {
  const slow: FaultEvent = {
    at: 0,
    type: "slowSpend",
    seconds: 0.01,
    latencyMs: 5000,
    target: "ns/App/app-0",
    action: "edit",
  };

  it("fires only when a spending call came while it held them", async () => {
    const idle = new FaultDriver(targets("none"));
    await idle.run([slow], Date.now());
    expect(idle.fired.slowSpend).toBe(0);
    expect(idle.failures[0]?.error).toContain("no spending call came");
    const busy = targets("none");
    busy.simulator.faultHits = async () => new Map([["rule-1", 2]]);
    const driver = new FaultDriver(busy);
    await driver.run([slow], Date.now());
    expect(driver.fired.slowSpend).toBe(1);
    expect(driver.delayedSpending).toBe(2);
  });
});
