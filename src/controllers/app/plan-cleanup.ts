import { reconciling } from "../../api/conditions.ts";
import { Reason } from "../service/reasons.ts";
import { released } from "../skeleton/cleanup.ts";
import type { AppAction } from "./actions.ts";
import { type AppPlan, type AppPlanInput, blocked, generationOf, refusal, result } from "./plan-common.ts";

/**
 * The App is being deleted (the skeleton releases an Orphan): stop, wait until stopped, delete, and
 * be released.
 */
export function planAppCleanup(input: AppPlanInput): AppPlan {
  const { app, observed } = input;
  const generation = generationOf(app);
  const appId = app.status?.appId ?? observed.external.app?.id;
  const release = () =>
    released(result(input, [], reconciling(Reason.Deleting, "releasing the app", generation)));
  if (observed.problem !== undefined) return blocked(input, observed.problem);
  if (observed.external.gone) return release();
  // With no ID a create may still have happened: released only once a lookup found nothing.
  if (appId === undefined) {
    if (observed.lookedUpNothing === true) return release();
    return result(
      input,
      [],
      reconciling(Reason.Deleting, "looking for an app a create may have made", generation),
    );
  }
  const status = observed.external.status;
  if (status === undefined) {
    return {
      ...result(input, [], reconciling(Reason.Deleting, "reading the app's status", generation)),
      statusPollMs: 0,
    };
  }
  const projectId = app.status?.projectId ?? observed.projectId ?? "";
  if (status.state === "stopped" || stopDone(input, status)) {
    const actions: AppAction[] = [{ type: "delete" }];
    return (
      refusal(input, projectId, actions, "delete the app") ??
      released(result(input, actions, reconciling(Reason.Deleting, "deleting the stopped app", generation)))
    );
  }
  const actions: AppAction[] = status.targetState === "stopped" ? [] : [{ type: "stop" }];
  const refused = refusal(input, projectId, actions, "stop the app before deleting it");
  if (refused !== undefined) return refused;
  const plan = result(
    input,
    actions,
    reconciling(Reason.Deleting, `stopping the app before deleting it (state ${status.state})`, generation),
  );
  // A little after the stop should be over (the wait runs from this reconcile's start, before the call).
  return { ...plan, statusPollMs: input.polls.stoppingMs + Math.ceil(input.polls.stoppingMs / 8) };
}

/**
 * The stop this process asked for should be over: the delete itself is the look at the app (the
 * service refuses it with app_not_stopped while it is still stopping), saving a status read.
 */
function stopDone(input: AppPlanInput, status: { targetState: string }): boolean {
  const settlesAt = input.observed.external.stopSettlesAt;
  return status.targetState === "stopped" && settlesAt !== undefined && settlesAt <= input.now.getTime();
}
