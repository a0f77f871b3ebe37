import { type Condition, type ConditionChange, ConditionType } from "../../api/conditions.ts";
import { allPolicies, type ManagementPolicy } from "../../api/policies.ts";
import { Reason } from "../service/reasons.ts";
import { type Blocker, problemChange } from "./condition-changes.ts";
import { mayCall } from "./policies.ts";

/** `a, b differ` / `a differs`. */
export function fieldsDiffer(fields: readonly string[]): string {
  return `${fields.join(", ")} ${fields.length === 1 ? "differs" : "differ"}`;
}

/**
 * A difference from the spec that no call can revert (a field the service never changes once the
 * object exists: a grid's name, an order's zone). With Update in the policies a person must act: the
 * kind's own Stalled `blocker`. Without Update berth would not revert it anyway, so it is reported
 * like any drift held back: Ready False `DriftNotReverted` naming the fields, neither Reconciling nor
 * Stalled (kstatus Current). Pure.
 */
export function unrevertable(
  spec: { managementPolicies?: readonly ManagementPolicy[] | undefined },
  fields: readonly string[],
  blocker: Blocker,
  generation: number,
): ConditionChange {
  if (mayCall(spec, "update")) return problemChange(blocker, generation);
  const policies = spec.managementPolicies ?? allPolicies;
  const message =
    `it differs from the spec at the service (${fieldsDiffer(fields)}), and managementPolicies ` +
    `[${policies.join(", ")}] allow no Update: berth reports the difference and does not revert it (${blocker.message})`;
  return {
    set: [
      {
        type: ConditionType.Ready,
        status: "False",
        reason: Reason.DriftNotReverted,
        message,
        observedGeneration: generation,
      },
    ],
    remove: [ConditionType.Reconciling, ConditionType.Stalled],
  };
}

/**
 * The difference a plan reported itself (see `unrevertable`), as the change the skeleton records
 * an event for, as it does for what its gate holds back; undefined when Ready says something else.
 */
export function reportedDifference(
  conditions: readonly Condition[] | undefined,
): ConditionChange | undefined {
  const ready = conditions?.find((c) => c.type === ConditionType.Ready);
  if (ready?.reason !== Reason.DriftNotReverted) return undefined;
  return {
    set: [
      {
        type: ready.type,
        status: ready.status,
        reason: ready.reason,
        message: ready.message,
        observedGeneration: ready.observedGeneration,
      },
    ],
    remove: [],
  };
}
