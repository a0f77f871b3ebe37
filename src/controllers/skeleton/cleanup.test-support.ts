import type { Decided } from "./cleanup.ts";
import type { BasePlan } from "./kind.ts";

/**
 * What a plan does in order, the skeleton's finalizer steps included: "addFinalizer" before the
 * actions, "removeFinalizer" once they are done.
 */
export function stepsOf(plan: Decided<BasePlan<{ type: string }>>): string[] {
  return [
    ...(plan.addsFinalizer === true ? ["addFinalizer"] : []),
    ...plan.actions.map((a) => a.type),
    ...(plan.release === undefined ? [] : ["removeFinalizer"]),
  ];
}
