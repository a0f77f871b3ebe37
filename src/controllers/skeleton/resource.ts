import type { Condition } from "../../api/conditions.ts";
import type { Intent } from "../../api/intents.ts";
import type { ManagementPolicy } from "../../api/policies.ts";

export type WithConditions = {
  conditions?: Condition[] | undefined;
  outputs?: { configMapName: string } | undefined;
  intents?: Intent[] | undefined;
};

/** The parts of a parsed resource the skeleton reads. */
export interface Resource {
  metadata: {
    uid?: string | undefined;
    generation?: number | undefined;
    creationTimestamp?: string | undefined;
    deletionTimestamp?: string | undefined;
    finalizers?: string[] | undefined;
    annotations?: Record<string, string> | undefined;
  };
  spec: {
    outputs?: { configMapName: string } | undefined;
    deletionPolicy?: string | undefined;
    managementPolicies?: ManagementPolicy[] | undefined;
    suspend?: boolean;
  };
  status?: WithConditions | undefined;
}
