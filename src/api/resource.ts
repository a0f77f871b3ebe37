import { z } from "zod";
import { apiVersion, type KindNames } from "./meta.ts";

/** The metadata fields berth reads; any others pass through untouched. */
export const objectMetaSchema = z.looseObject({
  name: z.string(),
  namespace: z.string().optional(),
  uid: z.string().optional(),
  generation: z.int().optional(),
  resourceVersion: z.string().optional(),
  labels: z.record(z.string(), z.string()).optional(),
  annotations: z.record(z.string(), z.string()).optional(),
  finalizers: z.array(z.string()).optional(),
  creationTimestamp: z.string().optional(),
  deletionTimestamp: z.string().optional(),
});
export type ObjectMeta = z.output<typeof objectMetaSchema>;

/** The whole object of one kind, as read from the apiserver: spec defaults are applied on parse. */
export function resourceSchema<K extends string, Spec extends z.ZodType, Status extends z.ZodType>(
  kind: K,
  spec: Spec,
  status: Status,
) {
  return z.object({
    apiVersion: z.literal(apiVersion),
    kind: z.literal(kind),
    metadata: objectMetaSchema,
    spec,
    status: status.optional(),
  });
}

export interface PrinterColumn {
  name: string;
  type: "string" | "integer" | "number" | "boolean" | "date";
  jsonPath: string;
  description: string;
  /** 1: shown only with `kubectl get -o wide`. */
  priority?: number;
}

/** Everything the CRD generator needs to know about one kind. */
export interface KindDefinition {
  names: KindNames;
  description: string;
  /** From `resourceSchema`; its `spec` and `status` become the CRD's schema. */
  schema: z.ZodObject;
  /** The status field holding the service's ID, shown as EXTERNAL-ID (none: no such column). */
  externalId?: Omit<PrinterColumn, "name" | "type">;
  /** Written by platform admins only: the aggregated berth-edit role does not grant writing it. */
  adminOnly?: true;
  /** Columns shown between REASON and EXTERNAL-ID. */
  columns?: readonly PrinterColumn[];
  /** Columns `kubectl get -o wide` adds after AGE. */
  wideColumns?: readonly Omit<PrinterColumn, "priority">[];
  /**
   * Scalar spec fields naming another object, for `kubectl get --field-selector` (CRD
   * selectableFields; `spec.credentialsRef.name` comes with every kind).
   */
  references?: readonly string[];
}
