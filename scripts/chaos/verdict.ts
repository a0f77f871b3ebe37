import type { FaultFailure, FaultTally, FaultType } from "./faults.ts";
import type { InvariantName } from "./invariant-names.ts";
import type { Violation } from "./ledger.ts";

/** A fault present the whole chaos (act-then-drop on a create, a 5xx), with the requests it hit. */
export interface SteadyFaultTally {
  name: string;
  hits: number;
}

/** What a run did against what its plan asked for: everything the verdict is drawn from. */
export interface RunRecord {
  violations: Violation[];
  kills: { planned: number; fired: number };
  faults: { planned: FaultTally; fired: FaultTally; failures: FaultFailure[]; steady: SteadyFaultTally[] };
  /** Operator exits nobody asked for (a crash), each with its exit code or signal. */
  operator: { unexpectedExits: string[] };
  /**
   * Readings of both sides that completed, and why each of the others (during the chaos and while
   * converging) did not; `matched`: what each check that reads a log found to check.
   */
  checks: { passes: number; skipped: string[]; matched: Partial<Record<InvariantName, number>> };
  /** Planned load actions given up on (the apiserver refused them for minutes). */
  loadFailed: number;
  /** Things the run itself could not do (read the operator log, make the final reading). */
  problems: string[];
}

export interface Verdict {
  passed: boolean;
  /** Each reason the run failed, in words. */
  failures: string[];
}

/**
 * A run passes only when no invariant was violated and it did everything it planned: every fault
 * and SIGKILL fired (a fault only when a request hit it), the operator exited only when killed,
 * every check and load action went through and matched something, and nothing it reads was missing.
 */
export function verdict(record: RunRecord): Verdict {
  const failures = [
    ...violationFailures(record.violations),
    ...killFailures(record.kills),
    ...exitFailures(record.operator.unexpectedExits),
    ...faultFailures(record.faults),
    ...checkFailures(record.checks),
    ...(record.loadFailed > 0 ? [`${record.loadFailed} planned load actions failed`] : []),
    ...record.problems,
  ];
  return { passed: failures.length === 0, failures };
}

function violationFailures(violations: Violation[]): string[] {
  if (violations.length === 0) return [];
  const names = [...new Set(violations.map((v) => v.invariant))];
  return [`${violations.length} invariant violations (${names.join(", ")})`];
}

function killFailures({ planned, fired }: RunRecord["kills"]): string[] {
  if (planned === 0) return ["the plan has no SIGKILL of the operator"];
  return fired < planned ? [`SIGKILLs: ${fired} fired of ${planned} planned`] : [];
}

function exitFailures(exits: string[]): string[] {
  return exits.length === 0
    ? []
    : [`the operator exited ${exits.length} times on its own (${exits.join(", ")})`];
}

function faultFailures({ planned, fired, failures, steady }: RunRecord["faults"]): string[] {
  const out = failures.map((f) => `fault ${f.type} (planned at ${f.at.toFixed(1)} s) failed: ${f.error}`);
  for (const type of Object.keys(planned) as FaultType[]) {
    if (fired[type] < planned[type])
      out.push(`fault ${type}: ${fired[type]} fired of ${planned[type]} planned`);
  }
  if (steady.length === 0) out.push("the run had no steady faults");
  for (const fault of steady)
    if (fault.hits === 0) out.push(`steady fault ${fault.name} never hit a request`);
  return out;
}

function checkFailures({ passes, skipped, matched }: RunRecord["checks"]): string[] {
  const out = passes === 0 ? ["no invariant check read both sides"] : [];
  if (skipped.length > 0) out.push(`${skipped.length} invariant checks skipped, first: ${skipped[0] ?? ""}`);
  for (const [name, count] of Object.entries(matched))
    if (count === 0) out.push(`${name} matched nothing: the check saw nothing to check`);
  return out;
}
