import { z } from "zod";
import { commonSpecFields, commonStatusFields, displayNameSchema, hexId } from "./common.ts";
import { costColumn, costStatusSchema } from "./cost.ts";
import { immutableField, withRules } from "./kube-schema.ts";
import { membersSchema, membersStatusSchema } from "./members.ts";
import { projectNames } from "./meta.ts";
import { type KindDefinition, resourceSchema } from "./resource.ts";

export const projectSpecSchema = withRules(
  z
    .object({
      displayName: displayNameSchema("project").optional(),
      projectId: hexId(
        "ID (24 hexadecimal characters) of an existing project to adopt instead of creating one. " +
          "Cannot be added, changed or removed after creation.",
      ).optional(),
      members: membersSchema.optional(),
      ...commonSpecFields,
    })
    .describe("Desired state of a project at the hosting service."),
  [
    immutableField(
      "projectId",
      "spec.projectId cannot be added, changed or removed after creation; create a new Project instead",
    ),
  ],
);

export const projectStatusSchema = z
  .object({
    ...commonStatusFields,
    projectId: hexId("ID of the project at the hosting service.").optional(),
    members: membersStatusSchema.optional(),
    cost: costStatusSchema
      .optional()
      .describe(
        "The sum of what the service charges per hour for the Apps in this project, in any namespace.",
      ),
  })
  .describe("Observed state of the project, written by the operator.");

export const projectSchema = resourceSchema(
  projectNames.kind,
  projectSpecSchema.prefault({}),
  projectStatusSchema,
);

export type ProjectSpec = z.output<typeof projectSpecSchema>;
export type ProjectStatus = z.output<typeof projectStatusSchema>;
export type Project = z.output<typeof projectSchema>;

export const projectKind: KindDefinition = {
  names: projectNames,
  description: "A project at the container hosting service: the home of apps.",
  schema: projectSchema,
  externalId: { jsonPath: ".status.projectId", description: "ID of the project at the hosting service." },
  columns: [costColumn],
};
