import type { FaultType } from "./faults.ts";
import { invariantNames } from "./invariant-names.ts";
import { decimal } from "./plan.ts";
import type { ChaosResult } from "./run.ts";
import type { Verdict } from "./verdict.ts";

const width = 22;

function line(label: string, value: string): string {
  return `${label.padEnd(width)} ${value}\n`;
}

function list(counts: Map<string, number> | Record<string, number>): string {
  const entries = counts instanceof Map ? [...counts] : Object.entries(counts);
  return entries.length === 0 ? "none" : entries.map(([name, n]) => `${name} ${n}`).join(", ");
}

function duration(seconds: number): string {
  const m = Math.floor(seconds / 60);
  const s = Math.round(seconds - m * 60);
  return m === 0 ? `${s}s` : `${m}m${String(s).padStart(2, "0")}s`;
}

/** Responses by status over every operation, from the simulator's counters. */
function byStatus(result: ChaosResult): Map<number, number> {
  const counts = new Map<number, number>();
  for (const statuses of Object.values(result.stats.requests.byOperation)) {
    for (const [status, n] of Object.entries(statuses)) {
      counts.set(Number(status), (counts.get(Number(status)) ?? 0) + n);
    }
  }
  return counts;
}

function kindsPlanned(result: ChaosResult): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of result.plan.resources) counts[r.kind] = (counts[r.kind] ?? 0) + 1;
  return counts;
}

/** "fired of planned" for one type of timed fault. */
function fired(result: ChaosResult, type: FaultType): string {
  return `${result.faults.fired[type]} of ${result.faults.planned[type]} planned fired`;
}

/** The figures, every violation and the verdict, as text. */
export function formatReport(result: ChaosResult, verdict: Verdict): string {
  const { options, load, secrets, operator } = result;
  const statuses = byStatus(result);
  const total = result.stats.requests.total;
  const fivexx = [500, 502, 503].reduce((sum, s) => sum + (statuses.get(s) ?? 0), 0);
  const percent = (n: number) => `${((100 * n) / Math.max(1, total)).toFixed(1)}%`;
  const orphans = result.plan.resources.filter((r) => r.policy === "Orphan").length;
  const overBudget = result.plan.resources.filter((r) => r.order?.overBudget === true).length;
  let out = `\nberth chaos: seed ${options.seed}, ${options.mode} (${duration(options.chaosSec)} of chaos, simulator clock ×${options.clockSpeed}, operator ${options.operator})\n\n`;
  out += line(
    "resources",
    `${result.plan.resources.length} planned in ${result.plan.namespaces.length} namespaces: ${list(kindsPlanned(result))}; ${orphans} Orphan, ${overBudget} ServerOrders over budget`,
  );
  out += line(
    "  load",
    `created ${load.created}, updated ${load.updated} (${list(load.updates)}), deleted ${load.deleted}, failed ${load.failed}`,
  );
  const byThemselves = operator.unexpectedExits.length;
  out += line(
    "operator",
    `SIGKILLs ${result.kills.fired} of ${result.kills.planned} planned fired (${operator.kills} in all, control-plane restarts included), ${operator.starts} starts, ${byThemselves} exits on its own${byThemselves > 0 ? ` (${operator.unexpectedExits.join(", ")})` : ""}`,
  );
  out += line("hosting requests", `${total} (all keys, the suite's reads included)`);
  out += line("faults: 5xx", `${fivexx} responses (${percent(fivexx)}; 20% rule on every operation)`);
  out += line(
    "  act-then-drop",
    `${list(result.creates.dropped)} (key forgotten; each kind's first create and 5% of the others)`,
  );
  out += line(
    "  steady rules hit",
    result.faults.steady.map((f) => `${f.name} ${f.hits}`).join(", ") ||
      "none (the run had no steady faults)",
  );
  out += line(
    "  429 storms",
    `${fired(result, "storm")}: ${statuses.get(429) ?? 0} responses (Retry-After up to 60 simulated s)`,
  );
  out += line(
    "  latency spikes",
    `${fired(result, "latency")} (1–10 s for 4–10 s: on half of all requests, or on every create)`,
  );
  out += line(
    "  Secret deleted",
    `${fired(result, "secretDeleted")}: ${secrets.forced} with its finalizers cleared, ${secrets.restored} restored, ${secrets.held} held Terminating by the credentials finalizer`,
  );
  out += line("  key rotated", fired(result, "keyRotated"));
  out += line("  other user's key", `${fired(result, "keyOfOtherUser")} (put in mid-order)`);
  out += line("  control plane", `${fired(result, "controlPlaneRestart")} (restarts)`);
  out += line(
    "  copies",
    `${fired(result, "copy")} (a managed resource's manifest, claim included, under another name)`,
  );
  out += line("  adoptions", `${fired(result, "adopt")} (spec ID of an object another resource manages)`);
  out += line(
    "  restores",
    `${fired(result, "restore")} (deleted with Orphan, re-created from metadata and spec)`,
  );
  out += line(
    "  slow spending",
    `${fired(result, "slowSpend")}: ${result.delayedSpending} spending calls answered past the client's write timeout (the resource deleted or edited meanwhile)`,
  );
  for (const f of result.faults.failures) out += `    ✗ ${f.type} at ${f.at.toFixed(1)} s: ${f.error}\n`;
  out += line("moves", `planned ${list(result.moves.planned)}`);
  out += line("  fired", `${list(result.moves.fired)}; ${result.moves.heldCalls} changing calls while held`);
  for (const f of result.moves.failures) out += `    ✗ ${f}\n`;
  out += line(
    "objects created",
    `${list(result.creates.acted)} (acted creates: 201, or 202 for a real order, not replayed)`,
  );
  out += line("  seen at the service", list(result.seen));
  out += line(
    "objects ended",
    `${list(result.destroys)} (acted deletes and stops, for no-destroy-while-managed)`,
  );
  if (result.spend !== undefined) {
    const { limit, orders, appCalls, limitChanges, peakMicros } = result.spend;
    out += line(
      "spend limit",
      `${limit.namespace} ${decimal(limit.limitMicros)}/h (changed ${limitChanges} times): ${orders} orders and ${appCalls} app calls that added spend there, each checked (at least ${decimal(peakMicros)}/h committed at the most)`,
    );
    if (result.spend.atEnd !== undefined) out += line("  at the end", result.spend.atEnd);
  }
  out += line(
    "invariant checks",
    `${result.checks.passes} readings of both sides, ${result.checks.skipped.length} skipped`,
  );
  for (const reason of result.checks.skipped.slice(0, 5)) out += `    ✗ ${reason}\n`;
  out += line(
    "converged",
    result.convergedSec === undefined
      ? `NO (after ${options.convergenceTimeoutSec} s)`
      : `${result.convergedSec.toFixed(1)} s after the chaos stopped`,
  );
  for (const waiting of result.unsettled.slice(0, 20)) out += `    ${waiting}\n`;
  out += line("wall time", duration(result.wallSec));
  if (result.logDir !== undefined) out += line("logs", result.logDir);
  out += line("invariants", invariantNames.join(", "));
  out += line("violations", String(result.violations.length));
  for (const v of result.violations) {
    out += `  ✗ ${v.invariant}: ${v.subject} (t+${v.atSec}s, seen ${v.seen}×)\n      ${v.detail}\n`;
  }
  out += line("verdict", verdict.passed ? "PASS" : `FAIL (${verdict.failures.length} reasons)`);
  for (const failure of verdict.failures) out += `  ✗ ${failure}\n`;
  return out;
}
