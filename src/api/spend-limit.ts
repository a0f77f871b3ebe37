import { z } from "zod";
import { conditionsSchema } from "./conditions.ts";
import { moneySchema } from "./cost.ts";
import { withRules } from "./kube-schema.ts";
import { spendLimitNames } from "./meta.ts";
import { type KindDefinition, resourceSchema } from "./resource.ts";

const decimalPattern = /^[0-9]+([.][0-9]+)?$/;

function decimalField(field: string, description: string) {
  return withRules(z.string().max(32), [
    {
      rule: `self.matches('${decimalPattern.source}')`,
      message: `spec.${field} must be a decimal number written as a string, e.g. "2.50"`,
      holds: (cost) => decimalPattern.test(cost),
    },
  ]).describe(description);
}

export const spendLimitSpecSchema = z
  .object({
    maxHourlyCost: decimalField(
      "maxHourlyCost",
      'Most the berth resources of this namespace may cost per hour together, as a decimal string such as "2.50" ' +
        "in the account's currency. A call that would add spend past it is refused before it is made; nothing running is stopped.",
    ),
    appReserve: decimalField(
      "appReserve",
      "What an App that does not run yet is counted at per hour (per instance of spec.instances.max), until the " +
        'service states its cost once it runs. Default "0.10".',
    ).optional(),
  })
  .describe(
    "A namespace's spend limit, like a ResourceQuota: written by platform admins (berth-edit can't write it).",
  );

const commitmentSchema = z
  .object({
    resource: z.string().max(320).describe("Kind/name of the resource the room was taken for."),
    uid: z.string().max(64).describe("UID of that resource."),
    hourly: z
      .string()
      .max(32)
      .describe("What the resource is counted at per hour until the service states at least this."),
    adds: z.string().max(32).describe("What the call adds per hour."),
    since: z.string().max(64).describe("When the room was taken (RFC 3339)."),
    readyBefore: z
      .object({
        lastTransitionTime: z.string().max(64).optional().describe("When Ready last became True (RFC 3339)."),
        observedGeneration: z
          .int()
          .min(0)
          .optional()
          .describe("The generation that Ready True was written for."),
      })
      .optional()
      .describe(
        "The resource's Ready condition when the room was taken: its lastTransitionTime and observedGeneration " +
          "if it was True, empty if not. Any other Ready True, with a stated cost, ends the commitment. " +
          "Without it (a commitment recorded before this field), a Ready True since `since` does.",
      ),
  })
  .describe("Room taken for a call that adds spend, before the call, until its cost shows in status.");

const refusedSchema = z
  .object({
    resource: z.string().max(320).describe("Kind/name of the resource refused."),
    adds: z.string().max(32).describe("What its call would add per hour."),
    since: z.string().max(64).describe("When it was first refused (RFC 3339): woken in this order."),
  })
  .describe("A resource whose spending call was refused: it goes on once there is room.");

export const spendLimitStatusSchema = z
  .object({
    observedGeneration: z.int().min(0).optional().describe("The generation this status describes."),
    conditions: conditionsSchema.optional(),
    limit: moneySchema.optional().describe("The limit, in the currency the namespace's costs are stated in."),
    used: moneySchema
      .optional()
      .describe("What the namespace's resources cost now (the sum of their status.cost.hourly)."),
    committed: moneySchema
      .optional()
      .describe("Spend taken by calls not yet costed (orders in flight, Apps not yet running)."),
    commitments: z
      .array(commitmentSchema)
      .max(256)
      .optional()
      .describe("Room taken before each call that adds spend; recorded with a resourceVersion precondition."),
    refused: z.array(refusedSchema).max(256).optional().describe("Resources waiting for room, oldest first."),
    refusedCount: z.int().min(0).optional().describe("How many resources wait for room."),
  })
  .describe("Observed spend of the namespace, written by the operator.");

export const spendLimitSchema = resourceSchema(
  spendLimitNames.kind,
  spendLimitSpecSchema,
  spendLimitStatusSchema,
);

export type SpendLimitSpec = z.output<typeof spendLimitSpecSchema>;
export type SpendLimitStatus = z.output<typeof spendLimitStatusSchema>;
export type SpendLimit = z.output<typeof spendLimitSchema>;
export type Commitment = z.output<typeof commitmentSchema>;
export type RefusedSpend = z.output<typeof refusedSchema>;

export const spendLimitKind: KindDefinition = {
  names: spendLimitNames,
  description:
    "A namespace's hourly spend limit at the hosting service, written by platform admins; berth refuses calls that would pass it.",
  schema: spendLimitSchema,
  adminOnly: true,
  columns: [
    { name: "LIMIT", type: "string", jsonPath: ".spec.maxHourlyCost", description: "The hourly limit." },
    {
      name: "USED",
      type: "string",
      jsonPath: ".status.used.amount",
      description: "What runs costs per hour now.",
    },
    {
      name: "COMMITTED",
      type: "string",
      jsonPath: ".status.committed.amount",
      description: "Spend taken by calls not yet costed.",
    },
    {
      name: "REFUSED",
      type: "integer",
      jsonPath: ".status.refusedCount",
      description: "Resources waiting for room.",
    },
  ],
};
