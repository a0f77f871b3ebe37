import type { App, AppStatus } from "../../api/app.ts";
import { applyConditionChange, type ConditionChange } from "../../api/conditions.ts";
import type { PollIntervals } from "../service/deps.ts";
import type { Problem } from "../service/failure.ts";
import { ownerToRecord } from "../service/ownership.ts";
import { pinningProblem, scopeProblem } from "../service/scopes.ts";
import { reconcileRequest } from "../skeleton/annotations.ts";
import { noChange, problemChange, quoteRequest } from "../skeleton/condition-changes.ts";
import { sentActions } from "../skeleton/policies.ts";
import { type AppAction, appChanges, scopesFor } from "./actions.ts";
import type { AppObserved } from "./memory.ts";
import { domainConditions, externalFields } from "./state.ts";

export interface AppPlanInput {
  app: App;
  observed: AppObserved;
  now: Date;
  polls: PollIntervals;
}

export interface AppPlan {
  actions: AppAction[];
  /** The whole status to write (the patcher sends only what differs). */
  status: AppStatus;
  /** A person must act: retry slowly, not with backoff. */
  stalled: boolean;
  statusPollMs: number | undefined;
  buildPollMs: number | undefined;
}

/** Stalled with the missing scopes or the project pinning, instead of a call certain to be refused. */
export function refusal(
  input: AppPlanInput,
  projectId: string,
  actions: readonly AppAction[],
  purpose: string,
): AppPlan | undefined {
  const me = input.observed.me;
  if (me === undefined) return undefined;
  // A call the management policies hold back is never sent: its scopes are not needed ([Observe]
  // works with a read-only key).
  const calls = sentActions(input.app.spec, appChanges, actions).filter((a) => scopesFor(a).length > 0);
  if (calls.length === 0) return undefined;
  const problem =
    pinningProblem(me, projectId, purpose) ?? scopeProblem(me, calls.flatMap(scopesFor), purpose);
  return problem === undefined ? undefined : blocked(input, problem);
}

export function blocked(input: AppPlanInput, problem: Problem): AppPlan {
  return result(input, [], problemChange(problem, generationOf(input.app)));
}

/** The plan: these actions, the condition change and status fields over the previous status. */
export function result(
  input: AppPlanInput,
  actions: AppAction[],
  change: ConditionChange,
  fields: Partial<AppStatus> = {},
): AppPlan {
  const { app, observed, now } = input;
  const previous = app.status ?? {};
  const conditions = applyConditionChange(
    applyConditionChange(previous.conditions, change, now),
    observed.external.status === undefined ? noChange() : domainConditions(app, observed.external),
    now,
  );
  const reconcileAt = app.spec.suspend ? previous.lastHandledReconcileAt : reconcileRequest(app);
  const status: AppStatus = {
    ...previous,
    ...externalFields(observed.external),
    ...ownerToRecord(previous.owner, observed.identity, observed.external.app !== undefined),
    ...fields,
    // The project an app is to be created in; once it exists, only a read or a move says where it is.
    ...(observed.projectId === undefined ||
    observed.external.app !== undefined ||
    previous.appId !== undefined
      ? {}
      : { projectId: observed.projectId }),
    ...(reconcileAt === undefined ? {} : { lastHandledReconcileAt: reconcileAt }),
    lastRequestId: observed.requestId,
    observedGeneration: generationOf(app),
    conditions,
  };
  const isStalled = change.set.some((c) => c.type === "Stalled" && c.status === "True");
  const all = [...actions, ...newBuildLog(status, previous)];
  return { actions: all, status, stalled: isStalled, statusPollMs: undefined, buildPollMs: undefined };
}

/** A failed build's log tail not yet in status is reported once, as a Warning event. */
function newBuildLog(status: AppStatus, previous: Partial<AppStatus>): AppAction[] {
  const { id, logTail } = status.build ?? {};
  if (id === undefined || logTail === undefined || logTail === previous.build?.logTail) return [];
  return [{ type: "reportBuildLog", buildId: id, tail: logTail }];
}

export function quoter(observed: AppObserved): (message: string) => string {
  return (message) => quoteRequest(observed.requestId, message);
}

export function generationOf(app: App): number {
  return app.metadata.generation ?? 0;
}
