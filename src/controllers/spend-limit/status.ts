import { applyConditionChange, type ConditionChange, ConditionType } from "../../api/conditions.ts";
import type { Commitment, SpendLimit, SpendLimitStatus } from "../../api/spend-limit.ts";
import { Reason } from "../service/reasons.ts";
import { type CostedResource, formatMicros, namespaceSpend, toMicros } from "../service/spend.ts";

/**
 * A SpendLimit's status from the namespace's resources: used, committed, the open commitments, the
 * refused still there, and Ready False SpendLimitExceeded when what runs costs more than the limit
 * (reported only: nothing running is stopped). Pure.
 */
export function spendLimitStatus(
  limit: SpendLimit,
  resources: readonly CostedResource[],
  now: Date,
  ttlMs: number,
  /** Room the resources keep on themselves (`status.spendRoom`): rebuilt here after a re-create. */
  kept: readonly Commitment[] = [],
): { status: SpendLimitStatus; exceeded: string | undefined } {
  const previous = limit.status ?? {};
  const spend = namespaceSpend(resources, [...(previous.commitments ?? []), ...kept], now, ttlMs);
  const maxHourly = toMicros(limit.spec.maxHourlyCost) ?? 0n;
  const present = new Set(resources.map((r) => r.resource));
  const refused = (previous.refused ?? []).filter((r) => present.has(r.resource));
  const currency = resources.find((r) => r.currency !== undefined)?.currency ?? "USD";
  const money = (micros: bigint) => ({ amount: formatMicros(micros), currency });
  const generation = limit.metadata.generation ?? 0;
  const exceeded =
    spend.used > maxHourly
      ? `what runs in this namespace costs ${formatMicros(spend.used)}/h, past maxHourlyCost ${formatMicros(maxHourly)}; ` +
        "nothing running is stopped, new spend is refused: lower what runs or raise the limit"
      : undefined;
  const change: ConditionChange =
    exceeded === undefined
      ? {
          set: [
            {
              type: ConditionType.Ready,
              status: "True",
              reason: "WithinLimit",
              message: `${formatMicros(spend.used + spend.committed)}/h of ${formatMicros(maxHourly)}/h counted (used and committed)`,
              observedGeneration: generation,
            },
          ],
          remove: [],
        }
      : {
          set: [
            {
              type: ConditionType.Ready,
              status: "False",
              reason: Reason.SpendLimitExceeded,
              message: exceeded,
              observedGeneration: generation,
            },
          ],
          remove: [],
        };
  const status: SpendLimitStatus = {
    observedGeneration: generation,
    conditions: applyConditionChange(previous.conditions, change, now),
    limit: money(maxHourly),
    used: money(spend.used),
    committed: money(spend.committed),
    commitments: spend.open,
    refused,
    refusedCount: refused.length,
  };
  return { status, exceeded };
}

/** How long until the first open commitment expires (its room then frees without any other change). */
export function untilFirstExpiry(
  commitments: readonly Commitment[],
  now: Date,
  ttlMs: number,
): number | undefined {
  const expiries = commitments.map((c) => Date.parse(c.since) + ttlMs - now.getTime());
  return expiries.length === 0 ? undefined : Math.max(0, Math.min(...expiries));
}
