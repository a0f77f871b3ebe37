import { deepEqual } from "./json.ts";
import type { KubeObject } from "./object.ts";
import type { QueuePriority } from "./workqueue.ts";

/**
 * How urgent an update of a watched object is. A person's change goes first: a new generation
 * (spec), a deletion, a changed annotation (a reconcile request) or label. An object without a
 * generation (a Secret, a ConfigMap) has no spec/status split: any update of it is a change. The
 * rest (status and bookkeeping written by someone else) waits behind the changes.
 */
export function updatePriority(oldObject: KubeObject, newObject: KubeObject): QueuePriority {
  const before = oldObject.metadata;
  const after = newObject.metadata;
  if (after.generation === undefined || before.generation !== after.generation) return "change";
  if (before.deletionTimestamp !== after.deletionTimestamp) return "change";
  if (!deepEqual(before.annotations ?? {}, after.annotations ?? {})) return "change";
  if (!deepEqual(before.labels ?? {}, after.labels ?? {})) return "change";
  return "background";
}

/**
 * How urgent an object of a source's initial list is (after a start or a restart): in the
 * background, unless a change is waiting in it: a deletion, or a generation its status has not
 * observed yet (the kstatus `status.observedGeneration` convention).
 */
export function listedPriority(object: KubeObject): QueuePriority {
  const { generation, deletionTimestamp } = object.metadata;
  if (deletionTimestamp !== undefined) return "change";
  if (generation === undefined) return "background";
  const status = (object as { status?: { observedGeneration?: unknown } }).status;
  return status?.observedGeneration === generation ? "background" : "change";
}
