import { z } from "zod";
import { finalizer } from "../../api/meta.ts";
import { isKubeError, type KubeClient, type KubeObject, type ResourceType } from "../../runtime/index.ts";
import { type Allowance, releasesWithoutCalls } from "./policies.ts";

/**
 * Removing berth never deletes what it managed. Deleting a CRD deletes every resource of its kind
 * (what `kubectl delete -k` of an install does); a resource going away because its CRD is going
 * away is released without calls, as with `deletionPolicy: Orphan`, and its event says why.
 */
export interface Uninstalling {
  /** The CRD being deleted (e.g. apps.berth.dev): its resources are released, never cleaned up. */
  uninstalling?: string | undefined;
}

/** What a deletion is decided with: the allowance, and whether berth is being removed. */
export type DeletionAllowance = Allowance & Uninstalling;

const crdSchema = z.looseObject({
  metadata: z.looseObject({ name: z.string(), deletionTimestamp: z.string().optional() }),
});

/**
 * The CRD of `type` when it is being deleted (it has a deletionTimestamp), else undefined. Read
 * from the apiserver, not a cache: the CRD's deletionTimestamp is written before the apiserver
 * deletes any of its resources, so a read after one of them was seen going away sees it, where a
 * watch of CRDs could deliver it later. Gone (404): it is being removed too.
 */
export async function crdBeingDeleted(kube: KubeClient, type: ResourceType): Promise<string | undefined> {
  const name = `${type.plural}.${type.group}`;
  try {
    const crd = crdSchema.parse(
      await kube.call("GET", `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`),
    );
    return crd.metadata.deletionTimestamp === undefined ? undefined : name;
  } catch (error) {
    if (isKubeError(error, "not_found")) return name;
    throw error;
  }
}

/**
 * The allowance of a resource about to be cleaned up at the service (going away, berth's finalizer
 * on it, its policies would call): when its CRD is being deleted, it is released as Orphan is,
 * naming the CRD. Anything else is returned as it is, without a read.
 */
export async function withUninstall(
  kube: KubeClient,
  type: ResourceType,
  object: KubeObject,
  allowance: Allowance,
): Promise<DeletionAllowance> {
  const cleaningUp =
    object.metadata.deletionTimestamp !== undefined &&
    (object.metadata.finalizers ?? []).includes(finalizer) &&
    !releasesWithoutCalls(allowance);
  if (!cleaningUp) return allowance;
  const crd = await crdBeingDeleted(kube, type);
  return crd === undefined ? allowance : { ...allowance, deletionPolicy: "Orphan", uninstalling: crd };
}

/** Why a release calls nothing, for its condition and event. */
export function releaseNote(allowance: DeletionAllowance): string {
  if (allowance.uninstalling !== undefined)
    return `its CRD ${allowance.uninstalling} is being deleted: berth is being removed`;
  return allowance.deletionPolicy === "Orphan"
    ? "deletionPolicy: Orphan"
    : "managementPolicies allow no Delete";
}
