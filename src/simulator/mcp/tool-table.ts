import { z } from "zod";
import type { Route } from "../http/route.ts";
import { routes } from "../routes/index.ts";
import { mcpOnlyRoutes } from "./mcp-routes.ts";
import { type ToolSpec, toolSpecs } from "./tools.ts";

type JsonSchema = Record<string, unknown>;

/** A tool ready to list and call. */
export interface Tool {
  spec: ToolSpec;
  /** The `tools/list` entry. */
  listing: { name: string; description: string; inputSchema: JsonSchema };
  /** Checks the arguments' shape; body fields pass through to the operation's own checks. */
  parser: z.ZodType<Record<string, unknown>>;
  /** The operation these (parsed) arguments run. */
  route(args: Record<string, unknown>): Route;
  /** The body's top-level fields (empty when the operation takes no body). */
  bodyFields: ReadonlySet<string>;
}

const idempotencyKeyText =
  "Idempotency key: 1–255 characters, no whitespace, new for each distinct action (a dry run and the real order need different keys); reuse it only to retry the same call";
const confirmText =
  "Must be true for this destructive action; set it only once the user asked for or confirmed this specific action";

/** The MCP tools over the given operations (REST routes and MCP-only operations), by name. */
export function buildTools(
  operations: readonly Route[] = [...routes, ...mcpOnlyRoutes],
): ReadonlyMap<string, Tool> {
  const byOperation = new Map(operations.map((r) => [r.operation, r]));
  const find = (operation: string): Route => {
    const route = byOperation.get(operation);
    if (route === undefined) throw new Error(`no operation named ${operation}`);
    return route;
  };
  return new Map(toolSpecs.map((spec) => [spec.name, buildTool(spec, find)]));
}

function buildTool(spec: ToolSpec, find: (operation: string) => Route): Tool {
  const picker = spec.operation;
  const choices =
    typeof picker === "string"
      ? [find(picker)]
      : Object.values(picker.choices).map((operation) => find(operation));
  const [first] = choices;
  if (first === undefined) throw new Error(`tool ${spec.name} runs no operation`);
  for (const route of choices) {
    const undeclared = pathNames(route).filter((name) => !(name in (spec.inputs ?? {})));
    if (undeclared.length > 0) throw new Error(`tool ${spec.name} lacks the path inputs [${undeclared}]`);
  }
  const idempotent = first.idempotent === true;
  const body = first.body === undefined ? undefined : jsonSchemaOf(first.body);
  const bodyProperties = (body?.properties ?? {}) as Record<string, JsonSchema>;
  const described = Object.keys(spec.bodyFields ?? {});
  const missing = described.filter((f) => !(f in bodyProperties));
  const undescribed = Object.keys(bodyProperties).filter((f) => f !== "confirm" && !described.includes(f));
  if (missing.length > 0 || undescribed.length > 0) {
    throw new Error(
      `tool ${spec.name}: body fields described but absent [${missing}], undescribed [${undescribed}]`,
    );
  }

  const shape = z.object({
    ...spec.inputs,
    // Optional here so the lenient profile may omit it; required in the listed schema.
    ...(idempotent ? { idempotencyKey: z.string().optional().describe(idempotencyKeyText) } : {}),
    ...(spec.confirm === true ? { confirm: z.boolean().optional().describe(confirmText) } : {}),
  });
  const own = jsonSchemaOf(shape);
  const properties: Record<string, JsonSchema> = {};
  for (const [field, schema] of Object.entries(bodyProperties)) {
    properties[field] = { ...schema, description: spec.bodyFields?.[field] };
  }
  Object.assign(properties, own.properties);
  const required = [
    ...((body?.required as string[]) ?? []),
    ...((own.required as string[]) ?? []),
    ...(idempotent ? ["idempotencyKey"] : []),
  ];

  return {
    spec,
    listing: {
      name: spec.name,
      description: spec.description,
      inputSchema: { type: "object", properties, required, additionalProperties: false },
    },
    parser: body === undefined ? shape.strict() : shape.catchall(z.unknown()),
    route: (args) => {
      if (typeof picker === "string") return first;
      return find(picker.choices[String(args[picker.input])] ?? "");
    },
    bodyFields: new Set(Object.keys(bodyProperties)),
  };
}

/** The `{name}` path values of an operation. */
export function pathNames(route: Route): string[] {
  return [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] ?? "");
}

function jsonSchemaOf(schema: z.ZodType): JsonSchema {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" });
  return rest;
}
