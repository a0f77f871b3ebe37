import { type ConditionChange, getCondition } from "../../api/conditions.ts";
import type { KubeObject } from "../../runtime/index.ts";
import type { Failure } from "../service/failure.ts";
import { type Decided, hasWork, planFor } from "./cleanup.ts";
import { problemChange } from "./condition-changes.ts";
import type { Blocking } from "./intents.ts";
import type { Action, BaseKnowledge, BasePlan, Kind, Resource } from "./kind.ts";
import { gatePlan } from "./policies.ts";
import { type Progress, performRound, type RoundStart, type Stop } from "./round.ts";
import { settleIntents } from "./settlement.ts";
import { spendProblem } from "./spend-gate.ts";
import type { DeletionAllowance } from "./uninstall.ts";
import { reportedDifference } from "./unrevertable.ts";

/** Where one reconcile starts acting from. */
export interface ConvergeStart<R extends Resource, K> extends RoundStart<R> {
  resource: R;
  knowledge: K;
  /** Which calls the policies and a pause allow (see `gatePlan`), and whether berth is being removed. */
  allowance: DeletionAllowance;
}

/** Where it left off: the object (undefined once released), what is known, and the plan whose status is written. */
export interface Converged<R, K, P> {
  object: KubeObject | undefined;
  resource: R;
  knowledge: K;
  /** The plan whose status is written, with status.intents as the final write leaves them. */
  plan: P;
  /** The call the actions stopped at. */
  failure: Failure | undefined;
  /** Not the service's error (a Kubernetes write failed): rethrown once what was learned is kept. */
  interrupted?: { error: unknown };
}

/**
 * Settle Pending intents → plan → perform → learn → plan, for up to `kind.rounds` rounds, stopping
 * at the first failed call. An action with an intent is recorded in status before its call (see
 * `underIntent`). While a Pending intent is unsettled nothing else is done (but an Orphan release).
 */
export async function converge<
  R extends Resource,
  M,
  K extends BaseKnowledge,
  A extends Action,
  F,
  P extends BasePlan<A>,
>(kind: Kind<R, M, K, A, F, P>, start: ConvergeStart<R, K>): Promise<Converged<R, K, P>> {
  const { now } = start;
  const settled = settleIntents(kind, start);
  const { resource, knowledge, intents } = settled;
  const progress: Progress<R, K> = { object: start.object, resource, knowledge, intents };
  // Every plan passes the gate: only the calls the management policies and a pause allow are made.
  let reported = false;
  const decide = (blocking?: Blocking): Decided<P> => {
    const planned = planFor(kind, progress.resource, progress.knowledge, now, blocking, start.allowance);
    const generation = progress.resource.metadata.generation ?? 0;
    const deleting = progress.resource.metadata.deletionTimestamp !== undefined;
    const gated = gatePlan(planned, kind, start.allowance, { generation, now, deleting });
    // What is held back, or a difference the plan reports itself (one no call can revert): an event.
    const report = gated.change ?? reportedDifference(gated.plan.status.conditions);
    if (report !== undefined && !reported) reportHeld(start, progress.resource, report);
    reported ||= report !== undefined;
    return gated.plan;
  };
  let plan = decide(settled.blocking);
  let stop: Stop | undefined;
  for (let round = 1; stop === undefined && round <= (kind.rounds ?? 1) && hasWork(plan); round++) {
    stop = await performRound(kind, start, progress, plan);
    // After a failed call the status says what is left, from what the failure taught.
    if (stop === undefined || "failure" in stop) plan = decide();
    else if ("spendRefused" in stop) plan = refusedPlan(kind, progress, stop.spendRefused.message, now);
  }
  const { intents: _, ...status } = plan.status;
  return {
    object: stop !== undefined && "released" in stop ? undefined : progress.object,
    resource: progress.resource,
    knowledge: progress.knowledge,
    plan: {
      ...plan,
      status: progress.intents.length === 0 ? status : { ...status, intents: progress.intents },
    },
    failure: stop !== undefined && "failure" in stop ? stop.failure : undefined,
    ...(stop !== undefined && "interrupted" in stop ? { interrupted: stop.interrupted } : {}),
  };
}

/** Refused by a SpendLimit: Stalled SpendLimitExceeded, nothing called; woken when there is room. */
function refusedPlan<
  R extends Resource,
  M,
  K extends BaseKnowledge,
  A extends Action,
  F,
  P extends BasePlan<A>,
>(kind: Kind<R, M, K, A, F, P>, progress: Progress<R, K>, message: string, now: Date): P {
  const generation = progress.resource.metadata.generation ?? 0;
  const change = problemChange(spendProblem(message), generation);
  return { ...kind.report(progress.resource, progress.knowledge, change, now), stalled: true };
}

/** A Normal event when what is held back changes (not on every look: the condition keeps saying it). */
function reportHeld<R extends Resource>(
  start: ConvergeStart<R, unknown>,
  resource: R,
  change: ConditionChange,
): void {
  const [ready] = change.set;
  if (ready === undefined) return;
  const before = getCondition(resource.status?.conditions, ready.type);
  if (before?.reason === ready.reason && before.message === ready.message) return;
  start.deps.recorder.record(start.object, "Normal", ready.reason, ready.message);
}
