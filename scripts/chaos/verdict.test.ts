import { describe, expect, it } from "vitest";
import { type FaultEvent, tallyFaults } from "./faults.ts";
import { type RunRecord, verdict } from "./verdict.ts";

const events: FaultEvent[] = [
  { at: 10, type: "storm", seconds: 5, retryAfterSec: 2, simulatedSec: 30 },
  { at: 20, type: "storm", seconds: 5, retryAfterSec: 2, simulatedSec: 30 },
  { at: 30, type: "controlPlaneRestart" },
];

/** A run that did all it planned and found nothing wrong. */
function clean(): RunRecord {
  return {
    violations: [],
    kills: { planned: 12, fired: 12 },
    faults: {
      planned: tallyFaults(events),
      fired: tallyFaults(events),
      failures: [],
      steady: [
        { name: "act-then-drop on createGrid", hits: 3 },
        { name: "503 on every operation", hits: 120 },
      ],
    },
    operator: { unexpectedExits: [] },
    checks: { passes: 40, skipped: [], matched: { "spend-within-limit": 6, "no-key-in-logs": 900 } },
    loadFailed: 0,
    problems: [],
  };
}

describe("the chaos run's verdict", () => {
  it("passes a run that did everything it planned and broke no invariant", () => {
    expect(verdict(clean())).toEqual({ passed: true, failures: [] });
  });

  it.each<[string, (r: RunRecord) => void, string]>([
    [
      "an invariant violated",
      (r) => {
        r.violations = [{ invariant: "converges", subject: "resources", detail: "", atSec: 200, seen: 1 }];
      },
      "1 invariant violations (converges)",
    ],
    [
      "fewer SIGKILLs than planned",
      (r) => {
        r.kills.fired = 9;
      },
      "SIGKILLs: 9 fired of 12 planned",
    ],
    [
      "a plan without SIGKILLs",
      (r) => {
        r.kills = { planned: 0, fired: 0 };
      },
      "the plan has no SIGKILL of the operator",
    ],
    [
      "a fault that did not fire",
      (r) => {
        r.faults.fired = tallyFaults(events.slice(1));
      },
      "fault storm: 1 fired of 2 planned",
    ],
    [
      "a steady fault that never hit a request",
      (r) => {
        r.faults.steady[0] = { name: "act-then-drop on createGrid", hits: 0 };
      },
      "steady fault act-then-drop on createGrid never hit a request",
    ],
    [
      "no steady faults at all",
      (r) => {
        r.faults.steady = [];
      },
      "the run had no steady faults",
    ],
    [
      "an operator exit nobody planned",
      (r) => {
        r.operator.unexpectedExits = ["exit 1", "SIGSEGV"];
      },
      "the operator exited 2 times on its own (exit 1, SIGSEGV)",
    ],
    [
      "a check that matched nothing",
      (r) => {
        r.checks.matched["spend-within-limit"] = 0;
      },
      "spend-within-limit matched nothing: the check saw nothing to check",
    ],
    [
      "a fault that failed to apply",
      (r) => {
        r.faults.failures = [{ type: "controlPlaneRestart", at: 30, error: "Error: etcd did not start" }];
      },
      "fault controlPlaneRestart (planned at 30.0 s) failed: Error: etcd did not start",
    ],
    [
      "a check that threw",
      (r) => {
        r.checks.skipped = ["t+42s: TypeError: x is undefined", "t+45s: Error: 401"];
      },
      "2 invariant checks skipped, first: t+42s: TypeError: x is undefined",
    ],
    [
      "no check that read both sides",
      (r) => {
        r.checks.passes = 0;
      },
      "no invariant check read both sides",
    ],
    [
      "load actions given up",
      (r) => {
        r.loadFailed = 2;
      },
      "2 planned load actions failed",
    ],
    [
      "an operator log it could not read",
      (r) => {
        r.problems = ["the operator log /tmp/x/operator.log could not be read for no-key-in-logs: ENOENT"];
      },
      "the operator log /tmp/x/operator.log could not be read for no-key-in-logs: ENOENT",
    ],
  ])("fails a run with %s, saying so", (_, spoil, failure) => {
    const record = clean();
    spoil(record);
    expect(verdict(record)).toEqual({ passed: false, failures: [failure] });
  });

  it("names every reason when several things went wrong", () => {
    const record = clean();
    record.kills.fired = 0;
    record.loadFailed = 1;
    expect(verdict(record).failures).toEqual([
      "SIGKILLs: 0 fired of 12 planned",
      "1 planned load actions failed",
    ]);
  });
});
