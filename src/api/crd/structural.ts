import { ApiError } from "../errors.ts";
import type { CelRule } from "../kube-schema.ts";

/** A CRD schema node (apiextensions.k8s.io/v1 JSONSchemaProps), keyed as it is in YAML. */
export interface StructuralSchema {
  description?: string;
  type?: "object" | "array" | "string" | "integer" | "number" | "boolean";
  format?: string;
  nullable?: boolean;
  enum?: unknown[];
  default?: unknown;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  multipleOf?: number;
  minItems?: number;
  maxItems?: number;
  minProperties?: number;
  maxProperties?: number;
  items?: StructuralSchema;
  properties?: Record<string, StructuralSchema>;
  required?: string[];
  additionalProperties?: StructuralSchema;
  "x-kubernetes-preserve-unknown-fields"?: boolean;
  "x-kubernetes-list-type"?: "atomic" | "set" | "map";
  "x-kubernetes-list-map-keys"?: string[];
  "x-kubernetes-validations"?: CelRule[];
}

/** Keywords copied as they are, in the order they are written out. */
const copied = [
  "description",
  "type",
  "format",
  "nullable",
  "enum",
  "default",
  "pattern",
  "minLength",
  "maxLength",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "minItems",
  "maxItems",
  "minProperties",
  "maxProperties",
] as const;

const extensions = [
  "x-kubernetes-list-type",
  "x-kubernetes-list-map-keys",
  "x-kubernetes-validations",
] as const;

const understood = new Set<string>([
  ...copied,
  ...extensions,
  "properties",
  "required",
  "items",
  "additionalProperties",
]);

const types = new Set(["object", "array", "string", "integer", "number", "boolean"]);

/**
 * Converts zod's JSON Schema (target openapi-3.0, io input) into a structural CRD schema: every
 * node typed, no `$ref`/`anyOf`/`const`, objects that accept any extra field marked
 * `x-kubernetes-preserve-unknown-fields`. Anything else is an error naming the field, so a schema
 * the apiserver would refuse never reaches a CRD file.
 */
export function toStructural(schema: unknown, path: string): StructuralSchema {
  const node = asNode(schema, path);
  for (const key of Object.keys(node)) {
    if (!understood.has(key)) unsupported(path, `keyword "${key}"`);
  }
  const result: Record<string, unknown> = {};
  for (const key of copied) {
    if (node[key] !== undefined) result[key] = node[key];
  }
  if (typeof node.type !== "string" || !types.has(node.type))
    unsupported(path, "a value without a single type");
  dropImplicitBounds(result);
  // The apiserver checks well-known formats itself; zod's regex for them only adds noise.
  if (result.format === "date-time") delete result.pattern;

  if (node.properties !== undefined) result.properties = convertProperties(node.properties, path);
  if (Array.isArray(node.required) && node.required.length > 0) result.required = node.required;
  if (node.items !== undefined) {
    if (Array.isArray(node.items)) unsupported(path, "tuple items");
    result.items = toStructural(node.items, `${path}[*]`);
  }
  convertAdditionalProperties(node.additionalProperties, result, path);
  for (const key of extensions) {
    if (node[key] !== undefined) result[key] = node[key];
  }
  return result as StructuralSchema;
}

function convertProperties(properties: unknown, path: string): Record<string, StructuralSchema> {
  const entries = Object.entries(asNode(properties, path));
  return Object.fromEntries(
    entries.map(([name, value]) => {
      const fieldPath = path ? `${path}.${name}` : name;
      const converted = toStructural(value, fieldPath);
      if (!converted.description) {
        throw new ApiError(
          "missing_description",
          `${fieldPath} has no description: add .describe() to its zod schema`,
        );
      }
      return [name, converted];
    }),
  );
}

function convertAdditionalProperties(value: unknown, result: Record<string, unknown>, path: string): void {
  if (value === undefined || value === false) return;
  const acceptsAnything = value === true || (isNode(value) && Object.keys(value).length === 0);
  if (acceptsAnything) {
    result["x-kubernetes-preserve-unknown-fields"] = true;
  } else if (result.properties !== undefined) {
    unsupported(path, "typed additionalProperties beside properties");
  } else {
    result.additionalProperties = toStructural(value, `${path}[*]`);
  }
}

/** zod writes the safe-integer range on every integer; it says nothing, so leave it out. */
function dropImplicitBounds(result: Record<string, unknown>): void {
  if (result.minimum === Number.MIN_SAFE_INTEGER) delete result.minimum;
  if (result.maximum === Number.MAX_SAFE_INTEGER) delete result.maximum;
}

function asNode(value: unknown, path: string): Record<string, unknown> {
  if (!isNode(value)) unsupported(path, "a schema that is not an object");
  return value;
}

function isNode(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function unsupported(path: string, what: string): never {
  throw new ApiError(
    "unsupported_schema",
    `${path || "(root)"}: ${what} cannot be expressed in a structural CRD schema`,
  );
}
