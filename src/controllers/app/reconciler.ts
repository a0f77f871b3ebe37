import { appSchema } from "../../api/app.ts";
import type { Reconciler } from "../../runtime/index.ts";
import type { ControllerDeps } from "../shared/deps.ts";
import type { Schedule } from "../shared/kind.ts";
import { kindReconciler } from "../shared/kind-reconciler.ts";
import { earliest, jittered } from "../shared/schedule.ts";
import { appType } from "./kind.ts";
import { learnApp } from "./learn.ts";
import { type AppKnowledge, newAppMemory, rememberApp } from "./memory.ts";
import { observeApp } from "./observe.ts";
import { appOutputs } from "./outputs.ts";
import { doingForApp, performApp } from "./perform.ts";
import { appPlans } from "./plan.ts";
import type { AppPlan } from "./plan-common.ts";
import { settleAppIntent } from "./settle.ts";

/** observe → plan → perform → learn → plan → one status write, for one App. */
export function appReconciler(deps: ControllerDeps): Reconciler {
  const { polls } = deps.settings;
  return kindReconciler(deps, {
    type: appType,
    schema: appSchema,
    observe: (app, memory, hosting) => observeApp({ ...deps, hosting }, app, memory ?? newAppMemory()),
    ...appPlans(polls),
    perform: performApp(polls),
    learn: learnApp,
    settle: settleAppIntent,
    doing: doingForApp,
    schedule: (knowledge, plan, now) => schedule(deps, knowledge, plan, now.getTime()),
    remember: rememberApp,
    waiting: (knowledge) => knowledge.problem !== undefined,
    outputs: appOutputs,
  });
}

/**
 * When the status and build are next read: from now, for whatever this reconcile learned anew. A
 * claimed restart or rebuild runs in the next reconcile, at once: its echo's write wakes nothing.
 */
function schedule(
  deps: ControllerDeps,
  knowledge: AppKnowledge,
  { statusPollMs, buildPollMs, actions }: AppPlan,
  now: number,
): Schedule<AppKnowledge> {
  const { polls } = deps.settings;
  const { reads, changedByCall } = knowledge;
  const next = { ...knowledge };
  // A lookup that found the app learned it anew too: its status is read next, at once.
  if (reads.status || reads.build || reads.lookup || changedByCall.status) {
    // A status taken from a call's answer (create, start…) is confirmed by a read once the app
    // should be running: not at once, and not after a long wait.
    const wait =
      changedByCall.status && statusPollMs !== undefined
        ? Math.min(statusPollMs, polls.startingMs)
        : statusPollMs;
    next.statusDueAt = wait === undefined ? undefined : now + wait;
  }
  if (reads.build || changedByCall.build)
    next.buildDueAt = buildPollMs === undefined ? undefined : now + buildPollMs;
  // Known from a create or a lookup rather than a read: the drift checks start from now.
  if (next.driftDueAt === undefined && next.external.app !== undefined) {
    next.driftDueAt = now + jittered(deps.settings.driftIntervalMs, deps.random);
  }
  const claimed = actions.some((action) => action.type === "claim");
  return {
    knowledge: next,
    dueAt: earliest(next.statusDueAt, next.buildDueAt, next.driftDueAt, claimed ? now : undefined),
  };
}
