import { ConditionType, isTrue } from "../../../api/conditions.ts";
import type { KubeObject, ResourceType } from "../../../runtime/index.ts";
import { reconcileRequest } from "../annotations.ts";
import { withProblem } from "../condition-changes.ts";
import type { Resource } from "../kind.ts";
import type { OutputSync, OutputSyncResult } from "./writer.ts";

type Status = NonNullable<Resource["status"]>;

/** What the skeleton knows of one resource when its status is about to be written. */
export interface OutputRound<R extends Resource, S extends Status> {
  key: string;
  type: ResourceType;
  /** The object as last written (its name, namespace and deletion). */
  object: KubeObject;
  resource: R;
  /** The status about to be written. */
  status: S;
}

/** The sync of a resource's output ConfigMap, its data from the kind's pure `outputs`. */
export function outputsOf<R extends Resource, S extends Status>(
  round: OutputRound<R, S>,
  outputs: (resource: R, status: S) => Record<string, string>,
): OutputSync {
  const { key, type, object, resource, status } = round;
  const configMapName = resource.spec.outputs?.configMapName;
  return {
    key,
    owner: {
      apiVersion: `${type.group}/${type.version}`,
      kind: type.kind ?? object.kind ?? "",
      name: object.metadata.name,
      namespace: object.metadata.namespace ?? "default",
      uid: resource.metadata.uid ?? object.metadata.uid ?? "",
    },
    configMapName,
    recorded: resource.status?.outputs?.configMapName,
    data: configMapName === undefined ? {} : outputs(resource, status),
    ready: isTrue(status.conditions, ConditionType.Ready),
    deleting: object.metadata.deletionTimestamp !== undefined,
    request: reconcileRequest(resource),
  };
}

/**
 * The status with the ConfigMap berth owns recorded, and an output problem (a foreign ConfigMap)
 * in the conditions unless the kind already reports one of its own.
 */
export function withOutputs<S extends Status>(
  status: S,
  result: OutputSyncResult,
  kindProblem: boolean,
  generation: number,
  now: Date,
): S {
  const next: S = {
    ...status,
    outputs: result.recorded === undefined ? undefined : { configMapName: result.recorded },
  };
  if (result.problem === undefined || kindProblem) return next;
  return withProblem(next, result.problem, generation, now);
}
