import {
  applyConditionChange,
  type Condition,
  ConditionType,
  getCondition,
  reconciling,
  stalled,
} from "../../api/conditions.ts";
import { deepEqual, type KubeObject, Outcome, patchStatus, type ResourceType } from "../../runtime/index.ts";
import type { ControllerDeps } from "./deps.ts";
import type { Problem } from "./failure.ts";
import { Reason } from "./reasons.ts";

type WithConditions = { conditions?: Condition[] | undefined; observedGeneration?: number | undefined };

/** The status with the problem's conditions in place of what the plan said. */
export function withProblem<S extends WithConditions>(
  status: S,
  problem: Problem,
  generation: number,
  now: Date,
): S {
  const change = problem.stalled
    ? stalled(problem.reason, problem.message, generation)
    : reconciling(problem.reason, problem.message, generation);
  return { ...status, conditions: applyConditionChange(status.conditions, change, now) };
}

/**
 * Writes `base` with the problem's conditions, nothing else learned (outside a reconcile: an
 * invalid spec, a capped budget). `recorded`: its Warning event was already recorded.
 */
export async function writeProblem(
  target: { deps: ControllerDeps; type: ResourceType; object: KubeObject },
  previous: WithConditions,
  base: WithConditions,
  problem: Problem,
  { generation, recorded }: { generation: number; recorded: boolean },
): Promise<void> {
  const next = withProblem(base, problem, generation, new Date(target.deps.now()));
  await writeStatus({
    ...target,
    createdAt: undefined,
    previous,
    next,
    readySeen: true,
    problemRecorded: recorded,
  });
}

export interface StatusWrite {
  deps: ControllerDeps;
  type: ResourceType;
  object: KubeObject;
  /** metadata.creationTimestamp, for the time to first Ready. */
  createdAt: string | undefined;
  previous: WithConditions | undefined;
  next: WithConditions;
  /** The resource was already seen Ready by this process. */
  readySeen: boolean;
  /** A Warning event for this problem was already recorded. */
  problemRecorded: boolean;
  /** Told of the object as written, when a write was made. */
  onWritten?: (object: KubeObject) => void;
}

/**
 * Writes the status (one merge patch, none when nothing changed), records an event when the
 * resource becomes Ready or Stalled, and the time to its first Ready. Returns whether it is now
 * (or was already) seen Ready.
 */
export async function writeStatus(write: StatusWrite): Promise<boolean> {
  const { deps, type, object, previous, next } = write;
  if (!onlyRequestIdsDiffer(previous, next)) {
    const result = await patchStatus(deps.kube, type, object, next);
    if (result.written) write.onWritten?.(result.object);
  }
  const before = {
    ready: getCondition(previous?.conditions, ConditionType.Ready),
    stall: getCondition(previous?.conditions, ConditionType.Stalled),
  };
  const ready = getCondition(next.conditions, ConditionType.Ready);
  const stall = getCondition(next.conditions, ConditionType.Stalled);
  const kind = type.kind ?? type.plural;
  if (ready?.status === "True" && before.ready?.status !== "True") {
    deps.recorder.record(object, "Normal", "Ready", ready.message);
    const created = Date.parse(write.createdAt ?? "");
    if (!write.readySeen && !Number.isNaN(created)) {
      deps.resourceMetrics.observeFirstReady(kind, Math.max(0, (deps.now() - created) / 1000));
    }
  }
  const newStall =
    stall?.status === "True" && (before.stall?.status !== "True" || before.stall.reason !== stall.reason);
  if (newStall && !write.problemRecorded)
    deps.recorder.record(object, "Warning", stall.reason, stall.message);
  return write.readySeen || ready?.status === "True";
}

const quotedRequest = / \(request [^)]*\)/g;

/**
 * A read that changed nothing but the request ID it quotes (lastRequestId, a message's
 * "(request …)") is no news: writing it would make an idle operator write status on every drift
 * check, and every write wakes the object again.
 */
export function onlyRequestIdsDiffer(previous: WithConditions | undefined, next: WithConditions): boolean {
  if (previous === undefined) return false;
  const plain = (status: WithConditions) => ({
    ...status,
    lastRequestId: undefined,
    conditions: status.conditions?.map((c) => ({ ...c, message: c.message.replace(quotedRequest, "") })),
  });
  return deepEqual(plain(previous), plain(next)) && !deepEqual(previous, next);
}

/** An object the apiserver accepted but berth cannot read (e.g. stored before a rule existed): Stalled. */
export async function invalidSpec(
  deps: ControllerDeps,
  type: ResourceType,
  object: KubeObject,
  issues: readonly { path: PropertyKey[]; message: string }[],
): Promise<Outcome> {
  const where = issues.map((i) => `${i.path.map(String).join(".") || "(object)"}: ${i.message}`).join("; ");
  const problem: Problem = {
    stalled: true,
    reason: Reason.InvalidSpec,
    message: `the ${type.kind ?? "object"} is not valid: ${where}; fix it`,
  };
  const generation = typeof object.metadata.generation === "number" ? object.metadata.generation : 0;
  const previous = (object.status ?? {}) as WithConditions;
  await writeProblem(
    { deps, type, object },
    previous,
    { ...previous, observedGeneration: generation },
    problem,
    {
      generation,
      recorded: false,
    },
  );
  return Outcome.requeueAfter(deps.settings.stalledRetryMs);
}
