import { z } from "zod";
import { conditionsSchema } from "./conditions.ts";
import { intentsSchema } from "./intents.ts";
import { credentials } from "./meta.ts";
import { outputsSpecSchema, outputsStatusSchema } from "./outputs.ts";
import { managementPoliciesSchema } from "./policies.ts";

/** Project and app IDs at the service: 24 hexadecimal characters. */
export function hexId(description: string) {
  return z
    .string()
    .max(24)
    .regex(/^[0-9a-fA-F]{24}$/)
    .describe(description);
}

/** Grid IDs at the service are GUIDs. */
export function guid(description: string) {
  return z
    .string()
    .max(36)
    .regex(/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/)
    .describe(description);
}

/** A reference to another object in the same namespace. */
export function localReference(kind: string, description: string) {
  return z
    .object({
      name: z.string().min(1).max(253).describe(`Name of the ${kind} in the same namespace.`),
    })
    .describe(description);
}

/** An object berth passes to the service as it is; its fields are the service's. */
export function passThroughObject(description: string) {
  return z.record(z.string(), z.unknown()).describe(description);
}

export function displayNameSchema(kind: string) {
  return z
    .string()
    .min(1)
    .max(128)
    .regex(/\S/, "must contain a character other than whitespace")
    .describe(
      `Name of the ${kind} at the hosting service. Defaults to metadata.name. Leading and trailing ` +
        "whitespace is dropped (the service trims names), so a YAML block scalar's newline does no harm.",
    );
}

/** The name as the service stores it: it trims names, so berth compares and sends them trimmed. */
export function serviceName(displayName: string | undefined, fallback: string): string {
  return (displayName ?? fallback).trim();
}

export const commonSpecFields = {
  credentialsRef: localReference(
    "Secret",
    `Secret in this namespace holding the hosting API key under "${credentials.apiKeyKey}" (and optionally ` +
      `the API base URL under "${credentials.baseUrlKey}"). When unset, berth uses the Secret ` +
      `"${credentials.defaultSecretName}" in this namespace, then the operator's default credentials.`,
  ).optional(),
  deletionPolicy: z
    .enum(["Delete", "Orphan"])
    .optional()
    .describe(
      "What happens at the hosting service when this resource is deleted: Delete removes the external " +
        "object (stopping it first); Orphan leaves it running and only releases it. When unset: the " +
        "Namespace's berth.dev/deletion-policy annotation, then the operator's default, then Delete. " +
        "managementPolicies without Delete release without calls whatever this says.",
    ),
  managementPolicies: managementPoliciesSchema.optional(),
  suspend: z
    .boolean()
    .default(false)
    .describe("Stop reconciling this resource. Deletion still works while suspended."),
  outputs: outputsSpecSchema.optional(),
};

export const commonStatusFields = {
  observedGeneration: z
    .int()
    .min(0)
    .optional()
    .describe("The metadata.generation the operator last reconciled."),
  conditions: conditionsSchema.optional(),
  lastRequestId: z
    .string()
    .max(256)
    .optional()
    .describe(
      "X-Request-Id of the last hosting API call that changed this status; quote it when contacting " +
        "support. A read that finds nothing new does not rewrite it.",
    ),
  owner: z
    .object({
      userId: z
        .string()
        .max(256)
        .describe("The service's user ID (GET /me) whose key created or adopted the object."),
      credential: z
        .string()
        .max(64)
        .describe("A hash naming that key (key- and 12 hex of its SHA-256); never the key itself."),
    })
    .optional()
    .describe(
      "Who owns the external object. berth reads a 404 as 'gone' only with a key of this user, and " +
        "stalls (CredentialsChanged) instead of creating, changing or releasing anything with another user's key.",
    ),
  lastHandledReconcileAt: z
    .string()
    .max(256)
    .optional()
    .describe(
      "Value of the last berth.dev/reconcile-requested-at (or reconcile.fluxcd.io/requestedAt) annotation handled.",
    ),
  outputs: outputsStatusSchema.optional(),
  intents: intentsSchema.optional(),
  spendRoom: z
    .object({
      hourly: z
        .string()
        .max(32)
        .describe("What the resource is counted at per hour until the service states at least this."),
      adds: z.string().max(32).describe("What the call added per hour."),
      since: z.string().max(64).describe("When the room was taken (RFC 3339)."),
      readyBefore: z
        .object({
          lastTransitionTime: z
            .string()
            .max(64)
            .optional()
            .describe("When Ready last became True (RFC 3339)."),
          observedGeneration: z
            .int()
            .min(0)
            .optional()
            .describe("The generation that Ready True was written for."),
        })
        .optional()
        .describe("The resource's Ready True when the room was taken; empty if it was not Ready."),
    })
    .optional()
    .describe(
      "The room the last call that added spend took under the namespace's SpendLimit, as recorded on the SpendLimit: " +
        "kept here too, so a SpendLimit re-created or restored without status still counts it until it ends " +
        "(the resource states at least as much, is Ready anew, or 30 minutes pass).",
    ),
};
