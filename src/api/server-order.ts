import { z } from "zod";
import { commonSpecFields, commonStatusFields, guid, localReference } from "./common.ts";
import { costColumn, costStatusSchema } from "./cost.ts";
import { immutableField, listMap, listSet, withRules } from "./kube-schema.ts";
import { serverOrderNames } from "./meta.ts";
import { type KindDefinition, resourceSchema } from "./resource.ts";

const decimalPattern = /^[0-9]+([.][0-9]+)?$/;

const catalogName = (description: string) => z.string().min(1).max(128).describe(description);

export const serverOrderSpecSchema = withRules(
  z
    .object({
      gridRefs: listMap(z.array(localReference("Grid", "A Grid resource in this namespace.")).max(16), "name")
        .optional()
        .describe("Grid resources in this namespace that the servers join when they arrive."),
      gridIds: listSet(z.array(guid("ID (a GUID) of a grid at the service.")).max(16))
        .optional()
        .describe("IDs of grids at the service that the servers join when they arrive."),
      csp: catalogName("Compute provider, as the service's catalog names it."),
      region: catalogName("Region to provision in, from the service's catalog."),
      zone: catalogName("Zone within the region, from the service's catalog.").optional(),
      instanceType: catalogName("Instance type to provision, from the service's catalog."),
      count: z
        .int()
        .min(1)
        .max(1000)
        .default(1)
        .describe(
          "Number of servers (1-1000). Raising it after the order orders only the difference, after a new " +
            "dry run and within maxHourlyCost (for all the servers) while approved is true; lowering it " +
            "deprovisions the newest servers first, destroying their disks.",
        ),
      power: z
        .enum(["On", "Hibernated"])
        .default("On")
        .describe(
          'On (quote it in YAML: "On"): the servers run. Hibernated: berth hibernates them. A hibernated server keeps its disk, and the ' +
            "disk's storage keeps costing money. Waking can fail while the provider has no capacity: berth " +
            "then retries with backoff (Reconciling, reason WakeBlocked).",
        ),
      autoReplace: z
        .boolean()
        .default(false)
        .describe(
          "true: berth replaces a server the service reports as failed, one at a time (a new machine; " +
            "the failed machine and its disk are retired). false: a failed server is reported (Stalled, " +
            "reason ServerFailed) until it is replaced with the berth.dev/replace-server annotation.",
        ),
      approved: z
        .boolean()
        .default(false)
        .describe(
          "false: only ask the service for an estimate (a dry run) and show it in status. " +
            "true: place the real order, which spends money.",
        ),
      orderId: z
        .string()
        .min(1)
        .max(128)
        .regex(/^\S+$/, "must not contain whitespace")
        .optional()
        .describe(
          "ID of an existing order at the service to adopt (as berth import prints it): berth follows that " +
            "order and its servers and never places a first order for this ServerOrder (a missing or failed " +
            "order is reported, not ordered again). With managementPolicies [Observe] it only reads. csp, " +
            "region, zone, instanceType and gridIds should say what the order has (a difference is reported). " +
            "Cannot be added, changed or removed after creation.",
        ),
      maxHourlyCost: withRules(z.string().max(32), [
        {
          rule: `self.matches('${decimalPattern.source}')`,
          message: 'spec.maxHourlyCost must be a decimal number written as a string, e.g. "2.50"',
          holds: (cost) => decimalPattern.test(cost),
        },
      ])
        .optional()
        .describe(
          'Highest hourly cost to accept, as a decimal string such as "2.50" in the account\'s currency. ' +
            "berth refuses the real order when the estimate is above it. Required when approved is true.",
        ),
      ...commonSpecFields,
    })
    .describe("Desired dedicated servers: what to order, and whether the order is approved."),
  [
    {
      rule: "!self.approved || has(self.maxHourlyCost)",
      message:
        "spec.maxHourlyCost is required when spec.approved is true, so a real order has a spending cap",
      fieldPath: ".maxHourlyCost",
      reason: "FieldValueRequired",
      holds: (s) => !s.approved || s.maxHourlyCost !== undefined,
    },
    immutableField(
      "orderId",
      "spec.orderId cannot be added, changed or removed after creation; create a new ServerOrder instead",
    ),
  ],
);

export const serverOrderStatusSchema = z
  .object({
    ...commonStatusFields,
    estimate: z
      .object({
        hourlyCost: z.string().describe("Estimated cost per hour of all the servers, as a decimal string."),
        currency: z.string().describe("Currency of hourlyCost."),
      })
      .optional()
      .describe("The service's estimate from the latest dry run."),
    cost: costStatusSchema.optional(),
    orderId: z.string().optional().describe("ID of the real order at the service, once placed."),
    growthOrders: z
      .array(
        z
          .object({
            id: z.string().describe("ID of the order at the service."),
            count: z.int().min(1).describe("Servers it ordered."),
            generation: z.int().min(0).describe("The metadata.generation it was placed for."),
          })
          .describe("An order placed because spec.count grew."),
      )
      .max(1000)
      .optional()
      .describe("Orders placed after the first one because spec.count grew, oldest first."),
    folded: z
      .object({
        growthOrders: z.int().min(0).describe("Growth orders folded out of status.growthOrders."),
        servers: z
          .int()
          .min(0)
          .describe(
            "Servers those growth orders delivered: still counted in what the ServerOrder holds, as " +
              "status.removedCount still counts those a lowered spec.count deprovisioned.",
          ),
      })
      .optional()
      .describe(
        "Growth orders no longer listed in status.growthOrders: settled over a day ago with all their " +
          "servers gone (deprovisioned or replaced). Their servers still count in what the ServerOrder holds.",
      ),
    growing: z
      .object({
        target: z.int().min(1).describe("spec.count the growth order is for."),
        count: z.int().min(1).describe("Servers it orders."),
        since: z.string().describe("When the call was about to be sent."),
      })
      .optional()
      .describe(
        "A growth order call whose answer is not recorded yet: after a restart berth looks for its order " +
          "and otherwise sends the same call again under the same Idempotency-Key.",
      ),
    removedCount: z.int().min(0).optional().describe("Servers deprovisioned because spec.count was lowered."),
    removing: z
      .array(z.string())
      .max(1000)
      .optional()
      .describe("Servers berth is deprovisioning because spec.count was lowered, until they are gone."),
    lastHandledReplaceServer: z
      .string()
      .max(256)
      .optional()
      .describe(
        "Value of the last berth.dev/replace-server annotation handled (replaced, or refused with the " +
          "reason in the Replaced condition); values over 256 characters are echoed as their sha256 digest.",
      ),
    replacing: z
      .object({
        address: z.string().describe("The server being replaced."),
        idempotencyKey: z
          .string()
          .describe("The Idempotency-Key of the replace call, sent again after a restart."),
        request: z
          .string()
          .max(256)
          .optional()
          .describe("The annotation value asking for it; absent for spec.autoReplace."),
        since: z.string().describe("When the call was about to be sent."),
      })
      .optional()
      .describe(
        "A replace call whose answer is not recorded yet: after a restart berth sends the same call again " +
          "under the same Idempotency-Key, so the server is replaced once.",
      ),
    replacements: z
      .array(
        z
          .object({
            address: z.string().describe("The server replaced (retired with its disk)."),
            orderId: z.string().optional().describe("The one-server order that replaces it."),
            request: z
              .string()
              .max(256)
              .optional()
              .describe("The berth.dev/replace-server value that asked for it; absent for spec.autoReplace."),
            at: z.string().describe("When the service accepted the replacement."),
          })
          .describe("A server replaced at the service."),
      )
      .max(1000)
      .optional()
      .describe("Servers replaced, oldest first; the orders that replace them hold their new servers."),
    phase: z
      .string()
      .optional()
      .describe(
        "Progress of the order in one word (e.g. Estimated, Ordered, Provisioned, Failed); conditions hold the details.",
      ),
    servers: z
      .array(
        z
          .object({
            address: z.string().describe("Address of the server (0x followed by 40 hexadecimal characters)."),
            state: z.string().optional().describe("State reported by the service."),
            power: z
              .string()
              .optional()
              .describe("Power state: On, Hibernated, Hibernating or Waking (absent in other states)."),
          })
          .describe("A server delivered by the order."),
      )
      .max(1000)
      .optional()
      .describe("Servers delivered by the orders."),
  })
  .describe("Observed state of the order, written by the operator.");

export const serverOrderSchema = resourceSchema(
  serverOrderNames.kind,
  serverOrderSpecSchema,
  serverOrderStatusSchema,
);

export type ServerOrderSpec = z.output<typeof serverOrderSpecSchema>;
export type ServerOrderStatus = z.output<typeof serverOrderStatusSchema>;
export type ServerOrder = z.output<typeof serverOrderSchema>;

export const serverOrderKind: KindDefinition = {
  names: serverOrderNames,
  description:
    "An order for dedicated servers at the container hosting service: estimated first, placed only when approved.",
  schema: serverOrderSchema,
  externalId: { jsonPath: ".status.orderId", description: "ID of the order at the hosting service." },
  columns: [costColumn],
  wideColumns: [
    { name: "COUNT", type: "integer", jsonPath: ".spec.count", description: "Servers ordered." },
    { name: "POWER", type: "string", jsonPath: ".spec.power", description: "Power state asked for." },
    {
      name: "HOURLY",
      type: "string",
      jsonPath: ".status.estimate.hourlyCost",
      description: "The service's estimate of the hourly cost of all the servers.",
    },
    {
      name: "CURRENCY",
      type: "string",
      jsonPath: ".status.estimate.currency",
      description: "Currency of HOURLY.",
    },
  ],
};
