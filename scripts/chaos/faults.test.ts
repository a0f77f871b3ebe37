import { describe, expect, it } from "vitest";
import { createLogger } from "../../src/telemetry/logger.ts";
import { FaultDriver, type FaultEvent, type FaultTargets, tallyFaults } from "./faults.ts";
import { Ledger } from "./ledger.ts";

/** A world whose simulator refuses to lift fault rules with the given id. */
function targets(unremovable: string): FaultTargets {
  let rules = 0;
  return {
    simulator: {
      addFault: async () => `rule-${++rules}`,
      removeFault: async (id) => {
        if (id === unremovable) throw new Error(`fault rule ${id} not found`);
      },
      faultHits: async () => new Map(),
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
    const driver = new FaultDriver(targets("rule-2"));
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
