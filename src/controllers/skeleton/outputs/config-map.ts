import { z } from "zod";
import { outputReadyKey } from "../../../api/outputs.ts";
import { deepEqual } from "../../../runtime/index.ts";
import { type Problem, stalledBy } from "../../service/failure.ts";
import { shortHash } from "../../service/hash.ts";
import { Reason } from "../../service/reasons.ts";

export const configMapType = { group: "", version: "v1", plural: "configmaps", kind: "ConfigMap" } as const;

const stringMap = z.record(z.string(), z.string());

const ownerReferenceSchema = z.looseObject({
  apiVersion: z.string(),
  kind: z.string(),
  name: z.string(),
  uid: z.string(),
  controller: z.boolean().optional(),
  blockOwnerDeletion: z.boolean().optional(),
});
export type OwnerReference = z.output<typeof ownerReferenceSchema>;

/** A core/v1 ConfigMap as the apiserver returns it; fields berth does not manage pass through. */
export const configMapSchema = z.looseObject({
  apiVersion: z.string().optional(),
  kind: z.string().optional(),
  metadata: z.looseObject({
    name: z.string(),
    namespace: z.string().optional(),
    uid: z.string().optional(),
    resourceVersion: z.string().optional(),
    labels: stringMap.optional(),
    annotations: stringMap.optional(),
    ownerReferences: z.array(ownerReferenceSchema).optional(),
  }),
  data: stringMap.nullish(),
  binaryData: stringMap.nullish(),
});
export type ConfigMap = z.output<typeof configMapSchema>;

/** The berth resource whose outputs a ConfigMap holds. */
export interface OutputOwner {
  apiVersion: string;
  kind: string;
  name: string;
  namespace: string;
  uid: string;
}

/** What the ConfigMap should hold. */
export interface DesiredOutputs {
  name: string;
  data: Record<string, string>;
  /** The resource is Ready: the ConfigMap carries berth.dev/ready. */
  ready: boolean;
}

/** What to do with the output ConfigMap, given what the apiserver holds under its name. */
export type OutputWrite =
  | { type: "create"; configMap: ConfigMap }
  | { type: "update"; configMap: ConfigMap }
  | { type: "unchanged" }
  /** Nothing is written for a resource being deleted: no new ConfigMap that the garbage collector would remove next. */
  | { type: "none" }
  | { type: "conflict"; problem: Problem };

const managedBy = { "app.kubernetes.io/managed-by": "berth" };

/** The controller reference that makes the ConfigMap the resource's (garbage-collected with it). */
export function ownerReference(owner: OutputOwner): OwnerReference {
  const { apiVersion, kind, name, uid } = owner;
  return { apiVersion, kind, name, uid, controller: true, blockOwnerDeletion: true };
}

/** berth wrote it for this resource: it carries the resource's ownerReference. */
export function ownedBy(configMap: ConfigMap, uid: string): boolean {
  return configMap.metadata.ownerReferences?.some((reference) => reference.uid === uid) ?? false;
}

/** Changes when anything the ConfigMap should hold changes: remembered to skip reads and writes. */
export function outputsDigest(desired: DesiredOutputs, owner: OutputOwner): string {
  return shortHash({ ...desired, uid: owner.uid });
}

export function planOutputWrite(input: {
  existing: ConfigMap | undefined;
  desired: DesiredOutputs;
  owner: OutputOwner;
  deleting: boolean;
}): OutputWrite {
  const { existing, desired, owner, deleting } = input;
  if (existing === undefined) {
    return deleting ? { type: "none" } : { type: "create", configMap: newConfigMap(desired, owner) };
  }
  if (!ownedBy(existing, owner.uid))
    return { type: "conflict", problem: outputConflict(owner, desired.name) };
  const updated = withOutputs(existing, desired);
  return deepEqual(updated, existing) ? { type: "unchanged" } : { type: "update", configMap: updated };
}

export function outputConflict(owner: OutputOwner, name: string): Problem {
  return stalledBy(
    Reason.OutputConflict,
    `ConfigMap ${name} already exists and has no ownerReference to this ${owner.kind}: berth did not create it and ` +
      "does not overwrite it; delete it, or set spec.outputs.configMapName to another name",
  );
}

function newConfigMap(desired: DesiredOutputs, owner: OutputOwner): ConfigMap {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: {
      name: desired.name,
      namespace: owner.namespace,
      ...marks(undefined, undefined, desired.ready),
      ownerReferences: [ownerReference(owner)],
    },
    ...dataOf(desired),
  };
}

/** The owned ConfigMap with berth's parts replaced; other labels, annotations and owners kept. */
function withOutputs(existing: ConfigMap, desired: DesiredOutputs): ConfigMap {
  const { data: _data, binaryData: _binaryData, ...rest } = existing;
  const { labels, annotations, ...metadata } = existing.metadata;
  return {
    ...rest,
    metadata: { ...metadata, ...marks(labels, annotations, desired.ready) },
    ...dataOf(desired),
  };
}

/** The apiserver drops an empty `data`: leaving it out keeps the comparison with what it returns exact. */
function dataOf(desired: DesiredOutputs): { data?: Record<string, string> } {
  return Object.keys(desired.data).length === 0 ? {} : { data: desired.data };
}

function marks(
  labels: Record<string, string> | undefined,
  annotations: Record<string, string> | undefined,
  ready: boolean,
): { labels: Record<string, string>; annotations?: Record<string, string> } {
  const readyMark: Record<string, string> = ready ? { [outputReadyKey]: "true" } : {};
  const nextAnnotations = { ...without(annotations, outputReadyKey), ...readyMark };
  return {
    labels: { ...without(labels, outputReadyKey), ...managedBy, ...readyMark },
    ...(Object.keys(nextAnnotations).length === 0 ? {} : { annotations: nextAnnotations }),
  };
}

function without(map: Record<string, string> | undefined, key: string): Record<string, string> {
  const { [key]: _removed, ...rest } = map ?? {};
  return rest;
}
