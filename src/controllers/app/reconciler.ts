import { type App, appSchema } from "../../api/app.ts";
import type { Reconciler } from "../../runtime/index.ts";
import { reconcileRequest } from "../shared/annotations.ts";
import type { ControllerDeps } from "../shared/deps.ts";
import { kindReconciler } from "../shared/kind-reconciler.ts";
import { earliest, jittered } from "../shared/schedule.ts";
import { type ActResult, actOnApp, appType } from "./act.ts";
import { type AppMemory, newAppMemory } from "./memory.ts";
import { type Observation, observeApp } from "./observe.ts";
import { appOutputs } from "./outputs.ts";
import { type AppPlan, planApp } from "./plan.ts";

/** observe → plan → act → one status write, for one App. */
export function appReconciler(deps: ControllerDeps): Reconciler {
  const polls = deps.settings.polls;
  return kindReconciler(deps, {
    type: appType,
    schema: appSchema,
    newMemory: newAppMemory,
    observe: (app, memory, hosting) => observeApp({ ...deps, hosting }, app, memory),
    async converge({ object, resource: app, memory, observation, now }) {
      const { observed, connection } = observation;
      const plan = planApp({ app, observed, now, polls });
      const acted = await actOnApp({ deps, object, app, memory, observed, connection }, plan.actions);
      // Status reflects what the calls just answered: plan again on the updated knowledge.
      const final = planApp({ app, observed, now, polls });
      schedule(deps, now.getTime(), app, memory, observation, acted, final);
      return { acted, final };
    },
    // A claimed restart or rebuild runs in the next reconcile, at once: its echo's write wakes nothing.
    dueAt: ({ memory, now }, { final }) =>
      earliest(
        memory.statusDueAt,
        memory.buildDueAt,
        memory.driftDueAt,
        final.actions.some((action) => action.type === "claim") ? now.getTime() : undefined,
      ),
    waiting: ({ observed }) => observed.problem !== undefined,
    outputs: appOutputs,
  });
}

/** Sets when the status and build are next read: from now, for whatever this reconcile learned anew. */
function schedule(
  deps: ControllerDeps,
  now: number,
  app: App,
  memory: AppMemory,
  { reads }: Observation,
  acted: ActResult,
  { statusPollMs, buildPollMs }: AppPlan,
): void {
  const { polls } = deps.settings;
  // A lookup that found the app learned it anew too: its status is read next, at once.
  if (reads.status || reads.build || reads.lookup || acted.statusChanged) {
    // A status taken from a call's answer (create, start…) is confirmed by a read once the app
    // should be running: not at once, and not after a long wait.
    const wait =
      acted.statusChanged && statusPollMs !== undefined
        ? Math.min(statusPollMs, polls.startingMs)
        : statusPollMs;
    memory.statusDueAt = wait === undefined ? undefined : now + wait;
  }
  if (reads.build || acted.buildChanged)
    memory.buildDueAt = buildPollMs === undefined ? undefined : now + buildPollMs;
  if (reads.app) memory.servedRequest = reconcileRequest(app);
  // Known from a create or a lookup rather than a read: the drift checks start from now.
  if (memory.driftDueAt === undefined && memory.external.app !== undefined) {
    memory.driftDueAt = now + jittered(deps.settings.driftIntervalMs, deps.random);
  }
}
