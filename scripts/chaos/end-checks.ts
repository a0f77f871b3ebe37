import { summary } from "./invariants.ts";
import { statusId, type Tracked, type Violations } from "./ledger.ts";
import { conditionOf } from "./resource.ts";

/** Calls a Stalled resource may make per minute of the operator's (the simulated) clock. */
export const stalledCallsPerMinute = 5;

/**
 * After convergence: each Stalled resource with an external ID made at most a few calls a minute
 * over the request paths the service logged in `minutes` (simulated), counted by the ID in the path.
 */
export function checkStalledCalls(
  resources: Tracked[],
  paths: string[],
  minutes: number,
  violations: Violations,
): void {
  const lowered = paths.map((path) => path.toLowerCase());
  for (const tracked of resources) {
    const last = tracked.last;
    const id = statusId(tracked.plan.kind, last)?.toLowerCase();
    if (last === undefined || id === undefined || conditionOf(last, "Stalled")?.status !== "True") continue;
    const calls = lowered.filter((path) => path.includes(id)).length;
    if (calls / minutes > stalledCallsPerMinute) {
      violations.add(
        "stalled-makes-few-calls",
        tracked.plan.key,
        `${calls} calls in ${minutes.toFixed(1)} simulated minutes while Stalled: ${summary(last)}`,
      );
    }
  }
}

/** No API key in any line the operator wrote, over all its lives; how many lines it searched. */
export function checkLogText(text: string, tokens: string[], violations: Violations): number {
  const written = text.split("\n").filter((line) => line !== "");
  for (const token of tokens) {
    const lines = written.filter((line) => line.includes(token));
    if (lines.length > 0) {
      violations.add(
        "no-key-in-logs",
        `key …${token.slice(-4)}`,
        `${lines.length} log lines, e.g. ${lines[0]?.replaceAll(token, "<key>").slice(0, 200)}`,
      );
    }
  }
  return tokens.length === 0 ? 0 : written.length;
}

/**
 * Every resource settled within the timeout: `convergedAt` (when they did) is undefined when it
 * ran out, and `unsettled` then lists what was still waiting.
 */
export function checkConverged(
  convergedAt: number | undefined,
  unsettled: string[],
  timeoutSec: number,
  violations: Violations,
): void {
  if (convergedAt !== undefined) return;
  const example = unsettled[0] === undefined ? "" : `, e.g. ${unsettled[0]}`;
  violations.add(
    "converges",
    "resources",
    `${unsettled.length} resources unsettled after ${timeoutSec} s${example}`,
  );
}
