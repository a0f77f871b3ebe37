import { z } from "zod";
import {
  commonSpecFields,
  commonStatusFields,
  displayNameSchema,
  guid,
  hexId,
  localReference,
  passThroughObject,
} from "./common.ts";
import { costColumn, costStatusSchema } from "./cost.ts";
import { immutableField, listMap, withRules } from "./kube-schema.ts";
import { appNames } from "./meta.ts";
import { type KindDefinition, resourceSchema } from "./resource.ts";

const portSchema = z
  .object({
    port: z.int().min(1).max(65535).describe("Container port to expose (1-65535)."),
    protocol: z
      .string()
      .min(1)
      .max(64)
      .default("http80_load_balancer")
      .describe("How the service exposes the port, in the service's terms, e.g. http80_load_balancer."),
  })
  .describe("A port the app listens on.");

const instancesSchema = withRules(
  z
    .object({
      min: z.int().min(0).describe("Fewest instances to run."),
      max: z.int().min(1).describe("Most instances to run."),
    })
    .describe("Instance bounds; the service takes both together."),
  [
    {
      rule: "self.min <= self.max",
      message: "spec.instances.min must not be greater than spec.instances.max",
      holds: (i) => i.min <= i.max,
    },
  ],
);

const envNamePattern = /^[A-Za-z_][A-Za-z0-9_]*$/;

const envVarSchema = withRules(
  z
    .object({
      name: withRules(z.string().min(1).max(256), [
        {
          rule: `self.matches('${envNamePattern.source}')`,
          message:
            "env var names must start with a letter or underscore and contain only letters, digits and underscores",
          holds: (name) => envNamePattern.test(name),
        },
      ]).describe("Name of the environment variable."),
      value: z.string().max(32768).optional().describe("Literal value. Set this or valueFrom, not both."),
      valueFrom: z
        .object({
          secretKeyRef: z
            .object({
              name: z.string().min(1).max(253).describe("Name of the Secret in the same namespace."),
              key: z
                .string()
                .min(1)
                .max(253)
                .regex(/^[-._a-zA-Z0-9]+$/)
                .describe("Key within the Secret."),
            })
            .describe("A key of a Secret in the same namespace."),
        })
        .describe(
          "Take the value from a Secret. It is sent to the service as a secret env var, again only when the Secret changes; " +
            "the value never appears in status.",
        )
        .optional(),
    })
    .describe("An environment variable for the app's containers."),
  [
    {
      rule: "has(self.value) != has(self.valueFrom)",
      message: "each env entry must set exactly one of value or valueFrom",
      holds: (e) => (e.value === undefined) !== (e.valueFrom === undefined),
    },
  ],
);

const gridPrioritySchema = withRules(
  z
    .object({
      gridRef: localReference(
        "Grid",
        "A Grid resource in this namespace. Set this or gridId, not both.",
      ).optional(),
      gridId: guid("ID (a GUID) of a grid at the service. Set this or gridRef, not both.").optional(),
      priority: z.int().min(0).describe("Priority of this grid, passed to the service as it is."),
    })
    .describe("A grid the app may be placed on, with its priority."),
  [
    {
      rule: "has(self.gridRef) != has(self.gridId)",
      message: "each gridPriorities entry must set exactly one of gridRef or gridId",
      holds: (g) => (g.gridRef === undefined) !== (g.gridId === undefined),
    },
  ],
);

const sourceSchema = z
  .looseObject({
    provider: z.string().min(1).max(64).describe("Code host the repository is connected from, e.g. github."),
    repository: z.string().min(1).max(1024).describe("Repository to build from, as the code host names it."),
    branch: z.string().min(1).max(255).describe("Branch to build."),
    path: z.string().max(1024).optional().describe("Directory inside the repository to build from."),
  })
  .describe(
    "Build the image from a connected code repository. Set this or image, not both. " +
      "Fields beyond these are passed to the service as they are.",
  );

export const appSpecSchema = withRules(
  z
    .object({
      projectRef: localReference(
        "Project",
        "The Project resource in this namespace that holds the app. Set this or projectId. Changing it moves the app, keeping its ID (needs apps:admin and ownership of the app).",
      ).optional(),
      projectId: hexId(
        "ID (24 hexadecimal characters) of an existing project at the service that holds the app. Set this or projectRef. Changing it moves the app, keeping its ID (needs apps:admin and ownership of the app).",
      ).optional(),
      displayName: displayNameSchema("app").optional(),
      appId: hexId(
        "ID (24 hexadecimal characters) of an existing app to adopt instead of creating one. " +
          "Cannot be added, changed or removed after creation.",
      ).optional(),
      image: z
        .string()
        .min(1)
        .max(1024)
        .optional()
        .describe("Container image to run. Set this or source, not both."),
      source: sourceSchema.optional(),
      ports: listMap(z.array(portSchema).max(32), "port")
        .optional()
        .describe("Ports the app listens on; each port once."),
      instances: instancesSchema.optional(),
      env: listMap(z.array(envVarSchema).max(128), "name")
        .optional()
        .describe("Environment variables; each name once."),
      volumes: z
        .array(passThroughObject("A volume, in the service's terms."))
        .max(32)
        .optional()
        .describe("Volumes, passed to the service as they are; replaced whole on change."),
      hardware: passThroughObject(
        "Hardware requirements, passed to the service as they are; merged by key on change.",
      ).optional(),
      placement: passThroughObject(
        "Placement requirements, passed to the service as they are; merged by key on change.",
      ).optional(),
      gridPriorities: z
        .array(gridPrioritySchema)
        .max(32)
        .optional()
        .describe(
          "Grids of dedicated servers the app may run on, with priorities; replaced whole on change.",
        ),
      command: z
        .array(z.string().max(4096))
        .max(64)
        .optional()
        .describe("Command to run instead of the image's default."),
      stopped: z.boolean().default(false).describe("Keep the app stopped (true) or running (false)."),
      ...commonSpecFields,
    })
    .describe("Desired state of an app at the hosting service."),
  [
    {
      rule: "has(self.image) != has(self.source)",
      message: "exactly one of spec.image or spec.source must be set",
      holds: (s) => (s.image === undefined) !== (s.source === undefined),
    },
    {
      rule: "has(self.projectRef) != has(self.projectId)",
      message: "exactly one of spec.projectRef or spec.projectId must be set",
      holds: (s) => (s.projectRef === undefined) !== (s.projectId === undefined),
    },
    immutableField(
      "appId",
      "spec.appId cannot be added, changed or removed after creation; create a new App instead",
    ),
  ],
);

const endpointSchema = z
  .object({
    port: z.int().describe("Container port."),
    protocol: z.string().describe("How the port is exposed."),
    // Optional as well as nullable: a merge patch cannot write null inside a list (the apiserver
    // drops it), so an endpoint not wired yet is written without an address.
    address: z
      .string()
      .nullable()
      .optional()
      .describe("Address to reach the port at; absent (or null) until the service has wired it."),
  })
  .describe("One address of the deployed app.");

export const appStatusSchema = z
  .object({
    ...commonStatusFields,
    appId: hexId("ID of the app at the hosting service.").optional(),
    projectId: hexId("ID of the project the app belongs to.").optional(),
    state: z
      .string()
      .optional()
      .describe(
        "Aggregate state reported by the service, e.g. requested, deferred, building, build_failed, provisioning, " +
          "start_blocked, running or stopped.",
      ),
    targetState: z.string().optional().describe("The state the service is moving the app to."),
    endpoints: z.array(endpointSchema).max(64).optional().describe("Addresses of the deployed app."),
    url: z.string().optional().describe("The first ready endpoint's address."),
    build: z
      .object({
        id: z.string().optional().describe("ID of the latest build."),
        state: z.string().optional().describe("State of the latest build."),
        failedStep: z.string().optional().describe("The step that failed, when the build failed."),
        logTail: z
          .string()
          .max(4096)
          .optional()
          .describe(
            "When the build failed: the last lines (up to 20) of the failed step's log, read once per build " +
              "(needs monitoring:read). Secret values are masked.",
          ),
      })
      .optional()
      .describe("The latest build from spec.source."),
    nodes: z
      .object({
        ready: z.int().min(0).describe("Nodes running the app and ready."),
        total: z.int().min(0).describe("Nodes the app is placed on."),
      })
      .optional()
      .describe("Node counts reported by the service."),
    errors: z
      .array(
        z
          .object({
            code: z.string().optional().describe("Error code from the service."),
            message: z.string().describe("What went wrong."),
            at: z.string().optional().describe("When the service reported it."),
          })
          .describe("An error the service reported."),
      )
      .max(20)
      .optional()
      .describe("Recent errors reported by the service, newest first."),
    appliedHash: z.string().optional().describe("Hash of the spec last applied at the service."),
    secretDigest: z
      .string()
      .optional()
      .describe("Digest of the secret env values last sent; the values themselves are never stored."),
    lastHandledRestartAt: z
      .string()
      .max(256)
      .optional()
      .describe("Value of the last berth.dev/restart-requested-at annotation handled."),
    lastHandledRebuildAt: z
      .string()
      .max(256)
      .optional()
      .describe("Value of the last berth.dev/rebuild-requested-at annotation handled."),
    cost: costStatusSchema.optional(),
  })
  .describe("Observed state of the app, written by the operator.");

export const appSchema = resourceSchema(appNames.kind, appSpecSchema, appStatusSchema);

export type AppSpec = z.output<typeof appSpecSchema>;
export type AppStatus = z.output<typeof appStatusSchema>;
export type App = z.output<typeof appSchema>;
export type AppEnvVar = z.output<typeof envVarSchema>;
export type AppPort = z.output<typeof portSchema>;
export type AppEndpoint = z.output<typeof endpointSchema>;

export const appKind: KindDefinition = {
  names: appNames,
  description: "An app at the container hosting service, run from an image or built from a repository.",
  schema: appSchema,
  externalId: { jsonPath: ".status.appId", description: "ID of the app at the hosting service." },
  columns: [
    {
      name: "STATE",
      type: "string",
      jsonPath: ".status.state",
      description: "State reported by the service.",
    },
    { name: "ENDPOINT", type: "string", jsonPath: ".status.url", description: "The first ready endpoint." },
    costColumn,
  ],
  wideColumns: [
    {
      name: "PROJECT",
      type: "string",
      jsonPath: ".spec.projectRef.name",
      description: "The Project it runs in.",
    },
    {
      name: "IMAGE",
      type: "string",
      jsonPath: ".spec.image",
      description: "The image it runs (unset when built).",
    },
    {
      name: "MIN",
      type: "integer",
      jsonPath: ".spec.instances.min",
      description: "Fewest instances to run.",
    },
    { name: "MAX", type: "integer", jsonPath: ".spec.instances.max", description: "Most instances to run." },
  ],
  references: [".spec.projectRef.name", ".spec.projectId"],
};
