import { z } from "zod";
import { asReturned } from "../http/inputs.ts";

/** Request bodies of app creation and update. */

export const guid = z
  .string()
  .regex(
    /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
    `must be a grid GUID${asReturned}`,
  );

export const resourceName = z.string().trim().min(1, "must not be empty").max(100);

const image = z
  .string()
  .max(512)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._\-/:@]*$/, "must be a container image reference such as nginx:1.27");

const port = z
  .object({
    port: z.number().int().min(1).max(65535),
    protocol: z.enum(["http80_load_balancer", "http", "tcp", "udp"]),
  })
  .strict();

const ports = z
  .array(port)
  .max(20)
  .refine((list) => new Set(list.map((p) => p.port)).size === list.length, "each port may appear once");

const envName = z
  .string()
  .max(255)
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "must start with a letter or _ and hold only letters, digits and _");

const uniqueNames = (list: readonly { name: string }[]) =>
  new Set(list.map((e) => e.name)).size === list.length;

const envCreate = z
  .object({ name: envName, value: z.string().max(32_768), secret: z.boolean().default(false) })
  .strict();

const envUpdate = z
  .object({ name: envName, value: z.string().max(32_768).nullable(), secret: z.boolean().default(false) })
  .strict();

const volumes = z
  .array(
    z
      .object({
        name: z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/, "must be lowercase letters, digits and -"),
        mountPath: z.string().max(255).regex(/^\//, "must be an absolute path"),
        sizeGb: z.number().int().min(1).max(1000),
      })
      .strict(),
  )
  .max(20)
  .refine(uniqueNames, "each volume name may appear once");

const hardwareFields = {
  cpu: z.number().min(0.1).max(64),
  memoryMb: z.number().int().min(128).max(262_144),
  gpu: z.number().int().min(0).max(8),
  diskGb: z.number().int().min(1).max(2000),
};

const placementFields = {
  csp: z.string().min(1).max(50),
  region: z.string().min(1).max(50),
  zone: z.string().min(1).max(50),
};

const gridPriorities = z.record(guid, z.number().int().min(0).max(1000));

const command = z.array(z.string().max(4096)).min(1).max(100);

const source = z
  .object({
    provider: z.enum(["github", "gitlab", "bitbucket"]),
    repository: z
      .string()
      .max(200)
      .regex(/^[\w.-]+\/[\w.-]+$/, "must be owner/name"),
    branch: z.string().min(1).max(255),
    path: z.string().max(1024).optional(),
  })
  .strict();

export const createAppBody = z
  .object({
    name: resourceName,
    config: z
      .object({
        image: image.optional(),
        ports: ports.default([]),
        instances: z
          .object({ min: z.number().int().min(0).max(100), max: z.number().int().min(1).max(100) })
          .strict()
          .refine((i) => i.min <= i.max, "min must not exceed max")
          .default({ min: 1, max: 1 }),
        env: z
          .array(envCreate)
          .max(200)
          .refine(uniqueNames, "each variable name may appear once")
          .default([]),
        volumes: volumes.default([]),
        hardware: z.object(hardwareFields).partial().strict().default({}),
        placement: z.object(placementFields).partial().strict().default({}),
        gridPriorities: gridPriorities.default({}),
        command: command.optional(),
      })
      .strict(),
    source: source.optional(),
  })
  .strict()
  .superRefine((body, ctx) => {
    if ((body.config.image === undefined) === (body.source === undefined)) {
      ctx.addIssue({
        code: "custom",
        path: ["config", "image"],
        message: "give exactly one of config.image (an image app) and source (a repository app)",
      });
    }
  });

const nullable = <T extends z.ZodType>(schema: T) => schema.nullable().optional();

export const updateAppBody = z
  .object({
    name: resourceName.optional(),
    config: z
      .object({
        image: image.optional(),
        ports: ports.optional(),
        instances: z
          .object({
            min: z.number().int().min(0).max(100).optional(),
            max: z.number().int().min(1).max(100).optional(),
          })
          .strict()
          .superRefine((i, ctx) => {
            if (i.min === undefined || i.max === undefined) {
              ctx.addIssue({ code: "custom", message: "min and max must be supplied together" });
            } else if (i.min > i.max) {
              ctx.addIssue({ code: "custom", message: "min must not exceed max" });
            }
          })
          .optional(),
        env: z.array(envUpdate).max(200).refine(uniqueNames, "each variable name may appear once").optional(),
        volumes: volumes.optional(),
        hardware: z
          .object({
            cpu: nullable(hardwareFields.cpu),
            memoryMb: nullable(hardwareFields.memoryMb),
            gpu: nullable(hardwareFields.gpu),
            diskGb: nullable(hardwareFields.diskGb),
          })
          .strict()
          .optional(),
        placement: z
          .object({
            csp: nullable(placementFields.csp),
            region: nullable(placementFields.region),
            zone: nullable(placementFields.zone),
          })
          .strict()
          .optional(),
        gridPriorities: gridPriorities.optional(),
        command: nullable(command),
      })
      .strict()
      .optional(),
    source: source.optional(),
  })
  .strict();

export type UpdateAppInput = z.infer<typeof updateAppBody>;
