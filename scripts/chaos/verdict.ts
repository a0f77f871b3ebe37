import { type FaultFailure, type FaultTally, faultTypes } from "./faults.ts";
import type { Violation } from "./ledger.ts";

/** What a run did against what its plan asked for: everything the verdict is drawn from. */
export interface RunRecord {
  violations: Violation[];
  kills: { planned: number; fired: number };
  faults: { planned: FaultTally; fired: FaultTally; failures: FaultFailure[] };
  /** Readings of both sides that completed, and why each of the others did not. */
  checks: { passes: number; skipped: string[] };
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
 * and SIGKILL fired, every check and load action went through, and nothing it reads was missing.
 */
export function verdict(record: RunRecord): Verdict {
  const failures = [
    ...violationFailures(record.violations),
    ...killFailures(record.kills),
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

function faultFailures({ planned, fired, failures }: RunRecord["faults"]): string[] {
  const out = failures.map((f) => `fault ${f.type} (planned at ${f.at.toFixed(1)} s) failed: ${f.error}`);
  for (const type of faultTypes) {
    if (fired[type] < planned[type])
      out.push(`fault ${type}: ${fired[type]} fired of ${planned[type]} planned`);
  }
  return out;
}

function checkFailures({ passes, skipped }: RunRecord["checks"]): string[] {
  const out = passes === 0 ? ["no invariant check read both sides"] : [];
  if (skipped.length > 0) out.push(`${skipped.length} invariant checks skipped, first: ${skipped[0] ?? ""}`);
  return out;
}
