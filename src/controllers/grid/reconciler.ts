import { gridSchema } from "../../api/grid.ts";
import { Outcome, type Reconciler } from "../../runtime/index.ts";
import type { ControllerDeps } from "../shared/deps.ts";
import { ReconcileError } from "../shared/errors.ts";
import { Memory } from "../shared/memory.ts";
import { earliest } from "../shared/schedule.ts";
import { invalidSpec, withProblem, writeStatus } from "../shared/status.ts";
import { actOnGrid } from "./act.ts";
import { gridType } from "./kind.ts";
import { observeGrid } from "./observe.ts";
import { type GridMemory, newGridMemory } from "./observed.ts";
import { planGrid } from "./plan.ts";

/** observe → plan → act → one status write, for one Grid. */
export function gridReconciler(deps: ControllerDeps): Reconciler {
  const memories = new Memory<GridMemory>(newGridMemory);
  const informer = deps.informer(gridType);
  return async ({ key }) => {
    const object = informer.get(key);
    if (object === undefined) {
      memories.forget(key);
      return Outcome.done();
    }
    const parsed = gridSchema.safeParse(object);
    if (!parsed.success) return invalidSpec(deps, gridType, object, parsed.error.issues);
    const grid = parsed.data;
    const memory = memories.get(key, grid.metadata.uid ?? "");
    const observation = await observeGrid(deps, grid, memory);
    const { observed, connection } = observation;
    const now = new Date(deps.now());
    const plan = planGrid({ grid, observed, now });
    const acted = await actOnGrid({ deps, object, grid, memory, observed, connection }, plan.actions);
    if (acted.object === undefined) {
      memories.forget(key);
      return Outcome.done();
    }
    // Status reflects what the calls just answered: plan again on the updated knowledge.
    const final = planGrid({ grid, observed, now });
    const generation = grid.metadata.generation ?? 0;
    const status =
      acted.failure === undefined ? final.status : withProblem(final.status, acted.failure, generation, now);
    memory.readySeen = await writeStatus({
      deps,
      type: gridType,
      object: acted.object,
      createdAt: grid.metadata.creationTimestamp,
      previous: grid.status,
      next: status,
      readySeen: memory.readySeen,
      problemRecorded: acted.failure !== undefined,
    });
    const failure = acted.failure ?? observation.failure;
    if (failure !== undefined && !failure.stalled) return Outcome.error(new ReconcileError(failure));
    const stalled = final.stalled || failure?.stalled === true;
    const next = earliest(
      memory.driftDueAt,
      stalled ? now.getTime() + deps.settings.stalledRetryMs : undefined,
    );
    return next === undefined ? Outcome.done() : Outcome.requeueAfter(Math.max(0, next - now.getTime()));
  };
}
