import { type App, appSchema } from "../../api/app.ts";
import { Outcome, type Reconciler } from "../../runtime/index.ts";
import { reconcileRequest } from "../shared/annotations.ts";
import type { ControllerDeps } from "../shared/deps.ts";
import { ReconcileError } from "../shared/errors.ts";
import { Memory } from "../shared/memory.ts";
import { OwnWrites } from "../shared/own-writes.ts";
import { earliest, jittered, retryAt } from "../shared/schedule.ts";
import { invalidSpec, withProblem, writeStatus } from "../shared/status.ts";
import { type ActResult, actOnApp, appType } from "./act.ts";
import { type AppMemory, newAppMemory } from "./memory.ts";
import { type Observation, observeApp } from "./observe.ts";
import { type AppPlan, planApp } from "./plan.ts";

/** observe → plan → act → one status write, for one App. */
export function appReconciler(deps: ControllerDeps): Reconciler {
  const memories = new Memory<AppMemory>(newAppMemory);
  const informer = deps.informer(appType);
  const ownWrites = new OwnWrites();
  return async ({ key }) => {
    const stored = informer.get(key);
    if (stored === undefined) {
      memories.forget(key);
      ownWrites.forget(key);
      return Outcome.done();
    }
    const object = ownWrites.freshest(key, stored);
    const parsed = appSchema.safeParse(object);
    if (!parsed.success) return invalidSpec(deps, appType, object, parsed.error.issues);
    const app = parsed.data;
    const memory = memories.get(key, app.metadata.uid ?? "");
    const observation = await observeApp(deps, app, memory);
    const { observed, connection } = observation;
    const now = new Date(deps.now());
    const plan = planApp({ app, observed, now, polls: deps.settings.polls });
    const acted = await actOnApp({ deps, object, app, memory, observed, connection }, plan.actions);
    if (acted.object === undefined) {
      memories.forget(key);
      ownWrites.forget(key);
      return Outcome.done();
    }
    ownWrites.record(key, object, acted.object);
    // Status reflects what the calls just answered: plan again on the updated knowledge.
    const final = planApp({ app, observed, now, polls: deps.settings.polls });
    schedule(deps, now.getTime(), app, memory, observation, acted, final);
    const failure = acted.failure ?? observation.failure;
    const generation = app.metadata.generation ?? 0;
    const status =
      acted.failure === undefined ? final.status : withProblem(final.status, acted.failure, generation, now);
    memory.readySeen = await writeStatus({
      deps,
      type: appType,
      object: acted.object,
      createdAt: app.metadata.creationTimestamp,
      previous: app.status,
      next: status,
      readySeen: memory.readySeen,
      problemRecorded: acted.failure !== undefined,
      onWritten: (written) => ownWrites.record(key, acted.object ?? object, written),
    });
    if (failure !== undefined && !failure.stalled) return Outcome.error(new ReconcileError(failure));
    const due = earliest(memory.statusDueAt, memory.buildDueAt, memory.driftDueAt);
    const next = earliest(
      due,
      retryAt(deps.settings, now, final.stalled || failure?.stalled === true, observed.problem !== undefined),
    );
    return next === undefined ? Outcome.done() : Outcome.requeueAfter(Math.max(0, next - now.getTime()));
  };
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
  if (reads.status || reads.build || acted.statusChanged) {
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
