import { z } from "zod";
import { listSet, withRules } from "./kube-schema.ts";

/**
 * Management policies, in Crossplane's vocabulary: which calls berth may make for a resource.
 * `Observe` reads and reports; `Create`, `Update` and `Delete` allow those changes; `*` is all of them.
 */
export const ManagementPolicy = {
  Observe: "Observe",
  Create: "Create",
  Update: "Update",
  Delete: "Delete",
  All: "*",
} as const;
export type ManagementPolicy = (typeof ManagementPolicy)[keyof typeof ManagementPolicy];

const policyValues = ["Observe", "Create", "Update", "Delete", "*"] as const;

/** The combinations berth supports, as the CEL rule and its message say. */
export const supportedPoliciesMessage =
  'managementPolicies must be ["*"] (the default: full management), or "Observe" with any of "Create", ' +
  '"Update" and "Delete": ["Observe"] (observe only), ["Observe","Create","Update"] (no Delete), ' +
  '["Observe","Create","Delete"] (no Update), ["Observe","Update","Delete"] (no Create), and so on';

/** `["*"]`, or Observe with any of Create, Update, Delete (each at most once). */
export function supportedPolicies(policies: readonly string[]): boolean {
  if (policies.length === 1 && policies[0] === "*") return true;
  return policies.includes("Observe") && !policies.includes("*");
}

export const managementPoliciesSchema = withRules(listSet(z.array(z.enum(policyValues)).min(1).max(4)), [
  {
    rule: "(size(self) == 1 && self[0] == '*') || ('Observe' in self && !('*' in self))",
    message: supportedPoliciesMessage,
    holds: supportedPolicies,
  },
]).describe(
  'Which calls berth may make at the service for this resource: "Observe" (read and report), "Create", ' +
    '"Update", "Delete", or ["*"] for all. ["Observe"] adopts the object named by its spec ID and only reports ' +
    "(status, cost, outputs, and drift as a condition); without Update drift is reported, not reverted; without " +
    "Delete a deletion releases without calls (as deletionPolicy: Orphan); without Create a missing object is " +
    "reported, not created. When unset: the Namespace's berth.dev/management-policies annotation, then the " +
    'operator\'s default, then ["*"].',
);

/** The change a call makes at the service: what a management policy or a pause allows. */
export type Change = "create" | "update" | "delete";

/** Whether these policies allow a change. */
export function policiesAllow(policies: readonly ManagementPolicy[], change: Change): boolean {
  if (policies.includes("*")) return true;
  const needed = { create: "Create", update: "Update", delete: "Delete" } as const;
  return policies.includes(needed[change]);
}

/** `["Observe"]` alone: reads and reports, never changes anything and never claims. */
export function observeOnly(policies: readonly ManagementPolicy[]): boolean {
  return !policies.includes("*") && !policies.some((p) => p === "Create" || p === "Update" || p === "Delete");
}

/** The full-management default. */
export const allPolicies: readonly ManagementPolicy[] = ["*"];

/**
 * A comma-separated list (a Namespace annotation, an operator flag): the policies, or undefined
 * when it is not a supported combination.
 */
export function parsePolicyList(text: string): ManagementPolicy[] | undefined {
  const items = text
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  const parsed = managementPoliciesSchema.safeParse(items);
  return parsed.success ? parsed.data : undefined;
}
