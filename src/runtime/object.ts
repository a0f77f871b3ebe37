import { z } from "zod";

/** The metadata fields the runtime reads; everything else passes through untouched. */
export const objectMetaSchema = z.looseObject({
  name: z.string(),
  namespace: z.string().optional(),
  uid: z.string().optional(),
  resourceVersion: z.string().optional(),
  generation: z.number().optional(),
  finalizers: z.array(z.string()).optional(),
  creationTimestamp: z.string().optional(),
  deletionTimestamp: z.string().optional(),
  labels: z.record(z.string(), z.string()).optional(),
  annotations: z.record(z.string(), z.string()).optional(),
});

export const kubeObjectSchema = z.looseObject({
  apiVersion: z.string().optional(),
  kind: z.string().optional(),
  metadata: objectMetaSchema,
});

export type ObjectMeta = z.infer<typeof objectMetaSchema>;
export type KubeObject = z.infer<typeof kubeObjectSchema>;

/**
 * The API server's object, checked against kubeObjectSchema and returned as it came: the schema
 * transforms nothing, and zod's copy would double what every list, watch event and write allocates.
 */
export function asKubeObject(raw: unknown): KubeObject {
  kubeObjectSchema.parse(raw);
  return raw as KubeObject;
}

/** Which kind of object an informer, patcher or recorder works on. `group` is "" for the core group. */
export interface ResourceType {
  group: string;
  version: string;
  plural: string;
  /** Needed where the object's kind must be written (events). */
  kind?: string;
  /** Defaults to true. */
  namespaced?: boolean;
}

/** The store and queue key: `namespace/name`, or `name` for cluster-scoped objects. */
export function objectKey(object: { metadata: { name: string; namespace?: string | undefined } }): string {
  const { namespace, name } = object.metadata;
  return namespace ? `${namespace}/${name}` : name;
}

export interface ObjectName {
  namespace: string | undefined;
  name: string;
}

export function parseKey(key: string): ObjectName {
  const slash = key.indexOf("/");
  return slash < 0
    ? { namespace: undefined, name: key }
    : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

export function apiVersionOf(type: ResourceType): string {
  return type.group === "" ? type.version : `${type.group}/${type.version}`;
}

/** A label for metrics and logs: `plural.group`, or `plural` for the core group. */
export function resourceLabel(type: ResourceType): string {
  return type.group === "" ? type.plural : `${type.plural}.${type.group}`;
}

/** The collection path, across all namespaces when `namespace` is undefined. */
export function collectionPath(type: ResourceType, namespace?: string): string {
  const base = type.group === "" ? `/api/${type.version}` : `/apis/${type.group}/${type.version}`;
  const scoped = (type.namespaced ?? true) && namespace !== undefined;
  return scoped
    ? `${base}/namespaces/${encodeURIComponent(namespace)}/${type.plural}`
    : `${base}/${type.plural}`;
}

export function objectPath(type: ResourceType, name: ObjectName): string {
  return `${collectionPath(type, name.namespace)}/${encodeURIComponent(name.name)}`;
}
