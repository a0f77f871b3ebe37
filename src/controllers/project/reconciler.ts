import { projectSchema } from "../../api/project.ts";
import { Outcome, type Reconciler } from "../../runtime/index.ts";
import type { ControllerDeps } from "../shared/deps.ts";
import { ReconcileError } from "../shared/errors.ts";
import { Memory } from "../shared/memory.ts";
import { OwnWrites } from "../shared/own-writes.ts";
import { earliest, jittered, retryAt } from "../shared/schedule.ts";
import { invalidSpec, withProblem, writeStatus } from "../shared/status.ts";
import { actOnProject, projectType } from "./act.ts";
import { observeProject } from "./observe.ts";
import { newProjectMemory, type ProjectMemory } from "./observed.ts";
import { planProject } from "./plan.ts";

/** observe → plan → act → one status write, for one Project. */
export function projectReconciler(deps: ControllerDeps): Reconciler {
  const memories = new Memory<ProjectMemory>(newProjectMemory);
  const informer = deps.informer(projectType);
  const ownWrites = new OwnWrites();
  return async ({ key }) => {
    const stored = informer.get(key);
    if (stored === undefined) {
      memories.forget(key);
      ownWrites.forget(key);
      return Outcome.done();
    }
    const object = ownWrites.freshest(key, stored);
    const parsed = projectSchema.safeParse(object);
    if (!parsed.success) return invalidSpec(deps, projectType, object, parsed.error.issues);
    const project = parsed.data;
    const memory = memories.get(key, project.metadata.uid ?? "");
    const observation = await observeProject(deps, project, memory);
    const { observed, connection } = observation;
    const now = new Date(deps.now());
    const plan = planProject({ project, observed, now });
    const acted = await actOnProject({ deps, object, project, memory, observed, connection }, plan.actions);
    if (acted.object === undefined) {
      memories.forget(key);
      ownWrites.forget(key);
      return Outcome.done();
    }
    ownWrites.record(key, object, acted.object);
    const final = planProject({ project, observed, now });
    const generation = project.metadata.generation ?? 0;
    const status =
      acted.failure === undefined ? final.status : withProblem(final.status, acted.failure, generation, now);
    memory.readySeen = await writeStatus({
      deps,
      type: projectType,
      object: acted.object,
      createdAt: project.metadata.creationTimestamp,
      previous: project.status,
      next: status,
      readySeen: memory.readySeen,
      problemRecorded: acted.failure !== undefined,
      onWritten: (written) => ownWrites.record(key, acted.object ?? object, written),
    });
    if (memory.driftDueAt === undefined && memory.project !== undefined) {
      memory.driftDueAt = now.getTime() + jittered(deps.settings.driftIntervalMs, deps.random);
    }
    const failure = acted.failure ?? observation.failure;
    if (failure !== undefined && !failure.stalled) return Outcome.error(new ReconcileError(failure));
    const stalled = final.stalled || failure?.stalled === true;
    const next = earliest(
      memory.driftDueAt,
      retryAt(deps.settings, now, stalled, observed.problem !== undefined),
    );
    return next === undefined ? Outcome.done() : Outcome.requeueAfter(Math.max(0, next - now.getTime()));
  };
}
