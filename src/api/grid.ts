import { z } from "zod";
import { commonSpecFields, commonStatusFields, displayNameSchema, guid } from "./common.ts";
import { immutableField, withRules } from "./kube-schema.ts";
import { gridNames } from "./meta.ts";
import { type KindDefinition, resourceSchema } from "./resource.ts";

export const gridSpecSchema = withRules(
  z
    .object({
      displayName: displayNameSchema("grid").optional(),
      description: z
        .string()
        .max(1024)
        .optional()
        .describe("Free text describing the grid, shown at the service."),
      gridId: guid(
        "ID (a GUID) of an existing grid to adopt instead of creating one. " +
          "Cannot be added, changed or removed after creation.",
      ).optional(),
      ...commonSpecFields,
    })
    .describe("Desired state of a grid: a group of dedicated servers that apps can be placed on."),
  [
    immutableField(
      "gridId",
      "spec.gridId cannot be added, changed or removed after creation; create a new Grid instead",
    ),
  ],
);

export const gridStatusSchema = z
  .object({
    ...commonStatusFields,
    gridId: guid("ID of the grid at the hosting service.").optional(),
  })
  .describe("Observed state of the grid, written by the operator.");

export const gridSchema = resourceSchema(gridNames.kind, gridSpecSchema.prefault({}), gridStatusSchema);

export type GridSpec = z.output<typeof gridSpecSchema>;
export type GridStatus = z.output<typeof gridStatusSchema>;
export type Grid = z.output<typeof gridSchema>;

export const gridKind: KindDefinition = {
  names: gridNames,
  description: "A grid at the container hosting service: dedicated servers that apps can be placed on.",
  schema: gridSchema,
  externalId: { jsonPath: ".status.gridId", description: "ID of the grid at the hosting service." },
};
