/** Every invariant the checker and the run may report; each has a fail/pass pair in invariants.test.ts. */
export const invariantNames = [
  "one-object-per-resource",
  "one-manager-per-object",
  "no-destroy-while-managed",
  "finalizer-held-while-object-exists",
  "no-release-while-active",
  "nothing-left-after-delete",
  "orphan-keeps-object",
  "order-within-maxHourlyCost",
  "order-only-when-approved",
  "spend-within-limit",
  "changes-held-while-held",
  "servers-equal-count",
  "annotation-echoed-within-a-minute",
  "stalled-makes-few-calls",
  "over-budget-stalls",
  "ends-ready-or-stalled",
  "ready-matches-service",
  "resource-stays",
  "no-key-in-logs",
  "converges",
] as const;

export type InvariantName = (typeof invariantNames)[number];
