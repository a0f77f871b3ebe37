import { type Condition, ConditionType, getCondition } from "../../api/conditions.ts";
import {
  deepEqual,
  type KubeObject,
  Outcome,
  objectKey,
  patchMetadata,
  patchStatus,
  type ResourceType,
} from "../../runtime/index.ts";
import type { ControllerDeps } from "../service/deps.ts";
import type { Problem } from "../service/failure.ts";
import { Reason } from "../service/reasons.ts";
import { identityMetadata, withoutClaim } from "./claim.ts";
import { withProblem } from "./condition-changes.ts";
import type { BasePlan, Resource } from "./kind.ts";
import { outputsOf, withOutputs } from "./outputs/hook.ts";
import type { OutputSyncResult, OutputWriter } from "./outputs/writer.ts";
import type { OwnWrites } from "./own-writes.ts";
import type { OwnedField } from "./owned.ts";

type WithConditions = { conditions?: Condition[] | undefined; observedGeneration?: number | undefined };

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

/** What the one write at the end of a reconcile starts from. */
export interface WriteBack<R extends Resource, S> {
  deps: ControllerDeps;
  kind: {
    type: ResourceType;
    externalId?: string | undefined;
    owns?: readonly OwnedField[] | undefined;
    outputs(resource: R, status: S): Record<string, string>;
  };
  ownWrites: OwnWrites;
  outputWriter: OutputWriter;
  /** Told of each object this write makes (its watch event is no news). */
  wrote(object: KubeObject): void;
  /** The object as converge left it, the resource parsed from it, and the status it started from. */
  object: KubeObject;
  resource: R;
  previous: WithConditions | undefined;
  plan: BasePlan<unknown> & { status: S };
  /** The call the actions stopped at: its conditions replace the plan's. */
  failure: Problem | undefined;
  readySeen: boolean;
  now: Date;
  /**
   * Whether the resource claims what it names (default). An Observe-only resource never does: a
   * claim it held as a manager is taken back, so another resource may manage the object.
   */
  claims?: boolean;
}

/**
 * The one write at the end of a reconcile: the plan's status (with the failed call's conditions),
 * the outputs ConfigMap and its record, the status patch with its Ready and Stalled events, and
 * the external ID and owner kept in annotations. Returns the status as written.
 */
export async function writeBack<R extends Resource, S extends WithConditions>(
  write: WriteBack<R, S>,
): Promise<{ status: S; outputs: OutputSyncResult; readySeen: boolean }> {
  const { deps, kind, ownWrites, object, resource, plan, failure, now } = write;
  const key = objectKey(object);
  const generation = resource.metadata.generation ?? 0;
  const planned = failure === undefined ? plan.status : withProblem(plan.status, failure, generation, now);
  const outputs = await write.outputWriter.sync(
    outputsOf({ key, type: kind.type, object, resource, status: planned }, kind.outputs),
  );
  const status = withOutputs(planned, outputs, plan.stalled || failure !== undefined, generation, now);
  // What it owns, and its claim, external ID and owner once status knows them (see
  // `withRestoredIdentity`): written before status, so a backup taken between the two writes
  // still has what the status is about to say.
  // An [Observe] resource claims nothing, and drops a claim it held (see `claim.ts`).
  const wanted =
    write.claims === false
      ? withoutClaim(object)
      : identityMetadata(kind, object, { before: write.previous, now: status }, now);
  const annotated = await patchMetadata(deps.kube, kind.type, object, wanted);
  if (annotated !== undefined && ownWrites.record(key, object, annotated)) write.wrote(annotated);
  const current = annotated ?? object;
  const readySeen = await writeStatus({
    deps,
    type: kind.type,
    object: current,
    createdAt: resource.metadata.creationTimestamp,
    previous: write.previous,
    next: status,
    readySeen: write.readySeen,
    problemRecorded: failure !== undefined,
    onWritten: (next) => {
      ownWrites.record(key, current, next);
      write.wrote(next);
    },
  });
  return { status, outputs, readySeen };
}
