import { appSchema } from "../../api/app.ts";
import type { Reconciler } from "../../runtime/index.ts";
import type { ControllerDeps } from "../service/deps.ts";
import { kindReconciler } from "../skeleton/kind-reconciler.ts";
import { jittered } from "../skeleton/schedule.ts";
import { appChanges } from "./actions.ts";
import type { DriftListings } from "./drift-listing.ts";
import { appType } from "./kind.ts";
import { learnApp } from "./learn.ts";
import { newAppMemory, type ReadTiming, rememberApp, scheduleReads } from "./memory.ts";
import { observeApp } from "./observe.ts";
import { appOutputs } from "./outputs.ts";
import { doingForApp, performApp } from "./perform.ts";
import { appPlans } from "./plan.ts";
import { settleAppIntent } from "./settle.ts";
import { appSpend } from "./spend.ts";

/** observe → plan → perform → learn → plan → one status write, for one App. */
export function appReconciler(deps: ControllerDeps, listings: DriftListings): Reconciler {
  const { polls } = deps.settings;
  const timing: ReadTiming = {
    startingMs: polls.startingMs,
    driftMs: () => jittered(deps.settings.driftIntervalMs, deps.random),
  };
  return kindReconciler(deps, {
    type: appType,
    schema: appSchema,
    observe: (app, memory, hosting) =>
      observeApp({ ...deps, hosting }, app, memory ?? newAppMemory(app), listings),
    ...appPlans(polls),
    perform: performApp(polls),
    learn: learnApp,
    settle: settleAppIntent,
    doing: doingForApp,
    changes: appChanges,
    schedule: (knowledge, plan, now) => scheduleReads(knowledge, plan, now.getTime(), timing),
    remember: rememberApp,
    spend: appSpend,
    waiting: (knowledge) => knowledge.problem !== undefined,
    outputs: appOutputs,
  });
}
