import type { Condition } from "../../api/conditions.ts";
import { annotations } from "../../api/meta.ts";
import { type KubeObject, Outcome, type ResourceType } from "../../runtime/index.ts";
import { credentialCandidates } from "../service/credentials.ts";
import type { ControllerDeps } from "../service/deps.ts";
import { waitingFor } from "../service/failure.ts";
import { shortHash } from "../service/hash.ts";
import { Reason } from "../service/reasons.ts";
import type { ResourceState } from "../service/resource-budget.ts";
import { writeProblem } from "./status.ts";

/** Event and condition reason of a resource whose reconciles are put off by its budget share. */
export const budgetCappedReason = Reason.BudgetCapped;

interface Tracked {
  metadata: {
    namespace?: string | undefined;
    annotations?: Record<string, string> | undefined;
    generation?: number | undefined;
    deletionTimestamp?: string | undefined;
  };
  spec: object;
  status?: ({ conditions?: Condition[] | undefined } & object) | undefined;
}

/** `plural/namespace/name`: the resource in the budget's accounts. */
export function budgetKey(type: ResourceType, key: string): string {
  return `${type.plural}/${key}`;
}

/**
 * The requeue for a resource over its share of the key's budget with no progress since: no call
 * is made, its conditions say it waits for budget (Reconciling `BudgetCapped`, with when it calls
 * again), one Warning event says so (until it progresses), and the metric counts it.
 */
export async function budgetRequeue(
  deps: ControllerDeps,
  type: ResourceType,
  object: KubeObject,
  key: string,
  resource: Tracked,
): Promise<Outcome | undefined> {
  const state = stateOf(deps, resource);
  const verdict = deps.hosting.budget.check(budgetKey(type, key), state);
  if (!verdict.capped) return undefined;
  deps.resourceMetrics.budgetCapped(type.kind ?? type.plural);
  if (verdict.first) {
    const until = new Date(deps.now() + verdict.retryAfterMs);
    const message =
      `this resource made ${verdict.spent} calls in the key's rate-limit window without progress, its ` +
      `share of the key's budget (${verdict.cap}); berth waits ${Math.ceil(verdict.retryAfterMs / 1000)} s ` +
      `(until ${until.toISOString()}) before calling again so other resources on the key keep working; ` +
      "a change of the resource, a request annotation or a change of its credentials Secret is acted on at once";
    deps.recorder.record(object, "Warning", budgetCappedReason, message);
    // Replaces the last failure's conditions: what the resource waits for now is budget.
    const previous = resource.status ?? {};
    await writeProblem({ deps, type, object }, previous, previous, waitingFor(Reason.BudgetCapped, message), {
      generation: resource.metadata.generation ?? 0,
      recorded: true,
    });
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
  deps.hosting.budget.learn(budgetKey(type, key), {
    ...stateOf(deps, resource),
    learned: learnedDigest(status),
  });
}

function stateOf(deps: ControllerDeps, resource: Tracked): Omit<ResourceState, "learned"> {
  return {
    generation: resource.metadata.generation ?? 0,
    deleting: resource.metadata.deletionTimestamp !== undefined,
    inputs: `${credentialsVersion(deps, resource)};${requestsOf(resource)}`,
  };
}

/** Annotations that ask for something: a new value is acted on at once, capped or not. */
const requestAnnotations = [
  annotations.reconcileRequestedAt,
  annotations.fluxReconcileRequestedAt,
  annotations.restartRequestedAt,
  annotations.rebuildRequestedAt,
  annotations.replaceServer,
];

function requestsOf(resource: Tracked): string {
  const present = resource.metadata.annotations ?? {};
  // Most resources carry none: no digest to compute, twice a reconcile.
  if (!requestAnnotations.some((name) => present[name] !== undefined)) return "";
  return shortHash(requestAnnotations.map((name) => present[name] ?? ""));
}

/** The resourceVersions of the Secrets the resource's credentials may come from: a fix changes it. */
function credentialsVersion(deps: ControllerDeps, resource: Tracked): string {
  const { credentialsRef } = resource.spec as { credentialsRef?: { name: string } };
  return credentialCandidates(resource.metadata.namespace ?? "default", credentialsRef, deps.credentials)
    .map((ref) => deps.secrets.get(ref)?.metadata.resourceVersion ?? "-")
    .join(",");
}

/** The status as knowledge: request IDs, messages and timestamps aside (an intent's too), which change without news. */
function learnedDigest(status: object): string {
  const {
    lastRequestId: _,
    conditions,
    intents,
    ...rest
  } = status as {
    lastRequestId?: unknown;
    conditions?: { type: string; status: string; reason?: string }[];
    intents?: { since?: string }[];
  };
  return shortHash({
    ...rest,
    conditions: conditions?.map((c) => [c.type, c.status, c.reason]),
    // The same intent recorded again (sent again under its key) is no news.
    intents: intents?.map(({ since: _since, ...intent }) => intent),
  });
}
