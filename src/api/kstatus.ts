/**
 * kstatus's reading of a custom resource, as Flux, kpt and `kubectl wait`-style tools compute it
 * (sigs.k8s.io/cli-utils/pkg/kstatus, the README's rules for CRDs), reimplemented for the few rules
 * a berth resource meets: deletion, an unobserved generation, then the "abnormal-true" conditions
 * Reconciling and Stalled. Ready is not one of kstatus's rules: with neither set, the resource is Current.
 */
export type KstatusStatus = "InProgress" | "Failed" | "Current" | "Terminating";

export interface KstatusResult {
  status: KstatusStatus;
  message: string;
}

interface Readable {
  kind?: string | undefined;
  metadata: { generation?: number | undefined; deletionTimestamp?: string | undefined };
  status?:
    | {
        observedGeneration?: number | undefined;
        conditions?: { type: string; status: string; message?: string | undefined }[] | undefined;
      }
    | undefined;
}

export function kstatusOf(object: Readable): KstatusResult {
  if (object.metadata.deletionTimestamp !== undefined) {
    return { status: "Terminating", message: "Resource scheduled for deletion" };
  }
  const { generation } = object.metadata;
  const observed = object.status?.observedGeneration;
  if (generation !== undefined && observed !== undefined && observed !== generation) {
    return {
      status: "InProgress",
      message: `${object.kind ?? "Resource"} generation is ${generation}, but latest observed generation is ${observed}`,
    };
  }
  for (const condition of object.status?.conditions ?? []) {
    if (condition.status !== "True") continue;
    if (condition.type === "Reconciling") return { status: "InProgress", message: condition.message ?? "" };
    if (condition.type === "Stalled") return { status: "Failed", message: condition.message ?? "" };
  }
  return { status: "Current", message: "Resource is current" };
}
