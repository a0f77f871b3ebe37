import { isKubeError } from "./errors.ts";
import { deepEqual, type Json, mergePatch } from "./json.ts";
import { type KubeClient, patchTypes } from "./kube-client.ts";
import { asKubeObject, type KubeObject, objectPath, type ResourceType } from "./object.ts";

export interface StatusPatchResult {
  /** False when the status already matched and no request was made. */
  written: boolean;
  object: KubeObject;
}

const maxAttempts = 3;

/**
 * Writes `status` with one merge patch to the status subresource, containing only what differs
 * from `object.status`; makes no request when nothing differs. The patch carries the object's
 * resourceVersion, so a concurrent write is a 409: the object is re-read and, if its status is
 * still the one the diff was based on, the patch is retried; otherwise the conflict is thrown and
 * the controller requeues (the reconcile saw a stale status).
 */
export async function patchStatus(
  client: KubeClient,
  type: ResourceType,
  object: KubeObject,
  status: Json,
): Promise<StatusPatchResult> {
  const diff = mergePatch(object.status, status);
  if (diff === undefined) return { written: false, object };
  const path = `${objectPath(type, { namespace: object.metadata.namespace, name: object.metadata.name })}/status`;
  let resourceVersion = object.metadata.resourceVersion;
  for (let attempt = 1; ; attempt++) {
    try {
      const body = { metadata: { resourceVersion }, status: diff };
      const updated = await client.call("PATCH", path, { body, contentType: patchTypes.merge });
      return { written: true, object: asKubeObject(updated) };
    } catch (error) {
      if (!isKubeError(error, "conflict") || attempt >= maxAttempts) throw error;
      const fresh = asKubeObject(await client.call("GET", path));
      if (!deepEqual(fresh.status, object.status)) throw error;
      resourceVersion = fresh.metadata.resourceVersion;
    }
  }
}
