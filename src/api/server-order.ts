import { z } from "zod";
import { commonSpecFields, commonStatusFields, guid, localReference } from "./common.ts";
import { listMap, listSet, withRules } from "./kube-schema.ts";
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
      count: z.int().min(1).max(1000).default(1).describe("Number of servers to order (1-1000)."),
      approved: z
        .boolean()
        .default(false)
        .describe(
          "false: only ask the service for an estimate (a dry run) and show it in status. " +
            "true: place the real order, which spends money.",
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
    orderId: z.string().optional().describe("ID of the real order at the service, once placed."),
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
          })
          .describe("A server delivered by the order."),
      )
      .max(1000)
      .optional()
      .describe("Servers delivered by the order."),
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
};
