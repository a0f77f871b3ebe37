import { type KubeObject, Outcome, type ResourceType } from "../../runtime/index.ts";
import type { ControllerDeps } from "./deps.ts";
import { shortHash } from "./hash.ts";
import type { ResourceState } from "./resource-budget.ts";

/** Event reason of a resource whose reconciles are put off by its budget share. */
export const budgetCappedReason = "BudgetCapped";

interface Tracked {
  metadata: { generation?: number | undefined; deletionTimestamp?: string | undefined };
}

/** `plural/namespace/name`: the resource in the budget's accounts. */
export function budgetKey(type: ResourceType, key: string): string {
  return `${type.plural}/${key}`;
}

/**
 * The requeue for a resource over its share of the key's budget with no progress since: no call
 * is made, one Warning event says so (until it progresses), and the metric counts it.
 */
export function budgetRequeue(
  deps: ControllerDeps,
  type: ResourceType,
  object: KubeObject,
  key: string,
  resource: Tracked,
): Outcome | undefined {
  const verdict = deps.hosting.budget.check(budgetKey(type, key), stateOf(resource));
  if (!verdict.capped) return undefined;
  deps.resourceMetrics.budgetCapped(type.kind ?? type.plural);
  if (verdict.first) {
    const message =
      `this resource made ${verdict.spent} calls in the key's rate-limit window without progress, its ` +
      `share of the key's budget (${verdict.cap}); berth waits ${Math.ceil(verdict.retryAfterMs / 1000)} s ` +
      "before calling again so other resources on the key keep working";
    deps.recorder.record(object, "Warning", budgetCappedReason, message);
  }
  return Outcome.requeueAfter(verdict.retryAfterMs);
}

/** Tells the budget where the reconcile left the resource (progress forgives what it spent). */
export function learnProgress(
  deps: ControllerDeps,
  type: ResourceType,
  key: string,
  resource: Tracked,
  status: object,
): void {
  deps.hosting.budget.learn(budgetKey(type, key), { ...stateOf(resource), learned: learnedDigest(status) });
}

function stateOf(resource: Tracked): Omit<ResourceState, "learned"> {
  return {
    generation: resource.metadata.generation ?? 0,
    deleting: resource.metadata.deletionTimestamp !== undefined,
  };
}

/** The status as knowledge: request IDs, messages and timestamps aside, which change without news. */
function learnedDigest(status: object): string {
  const {
    lastRequestId: _,
    conditions,
    ...rest
  } = status as {
    lastRequestId?: unknown;
    conditions?: { type: string; status: string; reason?: string }[];
  };
  return shortHash({ ...rest, conditions: conditions?.map((c) => [c.type, c.status, c.reason]) });
}
