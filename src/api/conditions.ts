import { z } from "zod";
import { listMap } from "./kube-schema.ts";

/** Condition types berth writes. Ready, Reconciling and Stalled follow kstatus. */
export const ConditionType = {
  /** The summary: True only when the external object matches the spec. */
  Ready: "Ready",
  /** Present (True) while work is in flight; absent otherwise. */
  Reconciling: "Reconciling",
  /** Present (True) only when a person must act; absent otherwise. */
  Stalled: "Stalled",
  Built: "Built",
  EndpointReady: "EndpointReady",
  Ordered: "Ordered",
} as const;
export type ConditionType = (typeof ConditionType)[keyof typeof ConditionType];

/** Condition reasons: PascalCase constants that tools and alerts can match on. */
export const Reason = {
  Succeeded: "Succeeded",
  Progressing: "Progressing",
  Building: "Building",
  BuildFailed: "BuildFailed",
  Deferred: "Deferred",
  StartBlocked: "StartBlocked",
  InsufficientBalance: "InsufficientBalance",
  MissingScopes: "MissingScopes",
  KeyProjectRestricted: "KeyProjectRestricted",
  CredentialsNotFound: "CredentialsNotFound",
  InvalidSpec: "InvalidSpec",
  GridNotReady: "GridNotReady",
  ProjectNotReady: "ProjectNotReady",
  AwaitingApproval: "AwaitingApproval",
  OverBudget: "OverBudget",
  ImmutableAfterOrder: "ImmutableAfterOrder",
  Suspended: "Suspended",
  /** Ready=False: the Namespace's berth.dev/paused annotation or the operator's --paused flag holds every change. */
  Paused: "Paused",
  /** Ready=False: the object differs from the spec, and managementPolicies allow no Update. */
  DriftNotReverted: "DriftNotReverted",
  /** Ready=False: a deletion asked for a call managementPolicies allow no Delete for. */
  DeleteHeld: "DeleteHeld",
  Deleting: "Deleting",
  DependentsExist: "DependentsExist",
  HostingError: "HostingError",
  RateLimited: "RateLimited",
} as const;
export type Reason = (typeof Reason)[keyof typeof Reason];

export const conditionSchema = z
  .object({
    type: z
      .string()
      .min(1)
      .max(316)
      .describe("Type of condition: Ready, Reconciling, Stalled, or a domain condition such as Built."),
    status: z.enum(["True", "False", "Unknown"]).describe("Status of the condition: True, False or Unknown."),
    reason: z
      .string()
      .min(1)
      .max(1024)
      .regex(/^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/)
      .describe("PascalCase reason for the condition's last transition, for tools and alerts to match on."),
    message: z
      .string()
      .max(32768)
      .describe(
        "What happened and what to do about it, quoting the hosting service's request ID when there is one.",
      ),
    lastTransitionTime: z.iso
      .datetime()
      .describe("When the condition last changed status (not reason or message)."),
    observedGeneration: z
      .int()
      .min(0)
      .optional()
      .describe("The metadata.generation this condition was computed from."),
  })
  .describe("One aspect of the resource's state, in the standard Kubernetes condition shape.");

export type Condition = z.output<typeof conditionSchema>;

export const conditionsSchema = listMap(z.array(conditionSchema).max(32), "type").describe(
  "Current state of the resource. Ready summarizes it; Reconciling is present while work is in flight; " +
    "Stalled is present when a person must act.",
);

/** What a caller decides; the time is filled in by `setCondition`. */
export type ConditionInput = Omit<Condition, "lastTransitionTime">;

/** Conditions to set and types to remove, as one consistent change. */
export interface ConditionChange {
  set: ConditionInput[];
  remove: string[];
}

/** Kubernetes timestamps carry whole seconds. */
export function timestamp(now: Date): string {
  return now.toISOString().replace(/\.\d+Z$/, "Z");
}

export function getCondition(
  conditions: readonly Condition[] | undefined,
  type: string,
): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}

export function isTrue(conditions: readonly Condition[] | undefined, type: string): boolean {
  return getCondition(conditions, type)?.status === "True";
}

/**
 * Returns the conditions with `input` set, keeping the order. `lastTransitionTime` moves only when
 * the status changes, so a new reason or message alone does not look like a transition.
 */
export function setCondition(
  conditions: readonly Condition[] | undefined,
  input: ConditionInput,
  now: Date,
): Condition[] {
  const current = getCondition(conditions, input.type);
  const lastTransitionTime =
    current && current.status === input.status ? current.lastTransitionTime : timestamp(now);
  const next: Condition = { ...input, lastTransitionTime };
  if (!current) return [...(conditions ?? []), next];
  return (conditions ?? []).map((c) => (c === current ? next : c));
}

export function removeCondition(conditions: readonly Condition[] | undefined, type: string): Condition[] {
  return (conditions ?? []).filter((c) => c.type !== type);
}

export function applyConditionChange(
  conditions: readonly Condition[] | undefined,
  change: ConditionChange,
  now: Date,
): Condition[] {
  let result = [...(conditions ?? [])];
  for (const type of change.remove) result = removeCondition(result, type);
  for (const input of change.set) result = setCondition(result, input, now);
  return result;
}

/** The external object matches the spec: Ready=True, no Reconciling, no Stalled. */
export function ready(reason: string, message: string, observedGeneration: number): ConditionChange {
  return {
    set: [{ type: ConditionType.Ready, status: "True", reason, message, observedGeneration }],
    remove: [ConditionType.Reconciling, ConditionType.Stalled],
  };
}

/** Work is in flight and will finish without help: Reconciling=True, Ready=Unknown, no Stalled. */
export function reconciling(reason: string, message: string, observedGeneration: number): ConditionChange {
  return {
    set: [
      { type: ConditionType.Reconciling, status: "True", reason, message, observedGeneration },
      { type: ConditionType.Ready, status: "Unknown", reason, message, observedGeneration },
    ],
    remove: [ConditionType.Stalled],
  };
}

/** A person must act: Stalled=True, Ready=False, no Reconciling. */
export function stalled(reason: string, message: string, observedGeneration: number): ConditionChange {
  return {
    set: [
      { type: ConditionType.Stalled, status: "True", reason, message, observedGeneration },
      { type: ConditionType.Ready, status: "False", reason, message, observedGeneration },
    ],
    remove: [ConditionType.Reconciling],
  };
}
