/**
 * docs/reference/api.md: every field of every kind, from the CRDs the zod schemas in src/api
 * generate (the same manifests as crds/), so the reference can't drift from the API.
 */
import { fileURLToPath } from "node:url";
import { crdManifest } from "../../src/api/crd/definition.ts";
import type { StructuralSchema } from "../../src/api/crd/structural.ts";
import { kinds } from "../../src/api/index.ts";
import type { KindDefinition } from "../../src/api/resource.ts";
import { cell, code, table } from "./markdown.ts";

export const apiReferencePath = fileURLToPath(new URL("../../docs/reference/api.md", import.meta.url));

/**
 * Every schema keyword, and whether the reference shows it. A keyword added to StructuralSchema
 * fails the typecheck here until it is placed; one a schema carries that is not listed fails
 * generation, so nothing is dropped silently.
 */
const keywords: Record<keyof StructuralSchema, true> = {
  description: true,
  type: true,
  format: true,
  nullable: true,
  enum: true,
  default: true,
  pattern: true,
  minLength: true,
  maxLength: true,
  minimum: true,
  maximum: true,
  exclusiveMinimum: true,
  exclusiveMaximum: true,
  multipleOf: true,
  minItems: true,
  maxItems: true,
  minProperties: true,
  maxProperties: true,
  items: true,
  properties: true,
  required: true,
  additionalProperties: true,
  "x-kubernetes-preserve-unknown-fields": true,
  "x-kubernetes-list-type": true,
  "x-kubernetes-list-map-keys": true,
  "x-kubernetes-validations": true,
};

interface Field {
  path: string;
  schema: StructuralSchema;
  required: boolean;
}

/** The fields under `schema`, depth first, each with its path (`[]` for an array's items). */
export function fields(schema: StructuralSchema, prefix: string): Field[] {
  checkKeywords(schema, prefix);
  const out: Field[] = [];
  const required = new Set(schema.required ?? []);
  for (const [name, child] of Object.entries(schema.properties ?? {})) {
    const path = `${prefix}.${name}`;
    out.push({ path, schema: child, required: required.has(name) });
    out.push(...nested(child, path));
  }
  return out;
}

function nested(schema: StructuralSchema, path: string): Field[] {
  checkKeywords(schema, path);
  if (schema.items !== undefined) {
    const items = schema.items;
    const inner = `${path}[]`;
    // An array of scalars says all in its own row; one of objects lists the objects' fields.
    if (
      items.properties === undefined &&
      items.items === undefined &&
      items.additionalProperties === undefined
    ) {
      checkKeywords(items, inner);
      return [];
    }
    // The item itself is a row too: its description, required fields' parent, and its own rules.
    return [{ path: inner, schema: items, required: false }, ...nested(items, inner)];
  }
  if (schema.additionalProperties !== undefined) {
    const values = schema.additionalProperties;
    const inner = `${path}.<key>`;
    if (values.properties === undefined) {
      checkKeywords(values, inner);
      return [];
    }
    return [{ path: inner, schema: values, required: false }, ...fields(values, inner)];
  }
  return fields(schema, path);
}

function checkKeywords(schema: StructuralSchema, path: string): void {
  for (const key of Object.keys(schema)) {
    if (!Object.hasOwn(keywords, key))
      throw new Error(`${path}: schema keyword ${key} is not shown in the API reference`);
  }
}

/** The field's type as a reader writes it: `[]object`, `map[string]string`, `string (date-time)`. */
export function typeOf(schema: StructuralSchema): string {
  if (schema.type === "array" && schema.items !== undefined) return `[]${typeOf(schema.items)}`;
  if (schema.type === "object" && schema.additionalProperties !== undefined) {
    return `map[string]${typeOf(schema.additionalProperties)}`;
  }
  const base = schema.type ?? (schema["x-kubernetes-preserve-unknown-fields"] ? "any" : "object");
  return schema.format === undefined ? base : `${base} (${schema.format})`;
}

/** Every rule the apiserver checks on this field, in words, each one line. */
export function validation(schema: StructuralSchema): string[] {
  const rules: string[] = [];
  if (schema.enum !== undefined)
    rules.push(`one of ${schema.enum.map((v) => code(JSON.stringify(v))).join(", ")}`);
  pushRange(rules, "length", schema.minLength, schema.maxLength);
  pushRange(rules, "value", schema.minimum, schema.maximum, schema.exclusiveMinimum, schema.exclusiveMaximum);
  if (schema.multipleOf !== undefined) rules.push(`multiple of ${schema.multipleOf}`);
  pushRange(rules, "items", schema.minItems, schema.maxItems);
  pushRange(rules, "keys", schema.minProperties, schema.maxProperties);
  if (schema.pattern !== undefined) rules.push(`matches ${code(schema.pattern)}`);
  const items = schema.items;
  // Scalar items have no row of their own: their rules are the array's.
  if (items !== undefined && items.properties === undefined && items.items === undefined) {
    const each = validation(items);
    if (each.length > 0) rules.push(`each item: ${each.join(", ")}`);
  }
  const listType = schema["x-kubernetes-list-type"];
  if (listType === "map") {
    rules.push(`unique by ${(schema["x-kubernetes-list-map-keys"] ?? []).map(code).join(", ")}`);
  } else if (listType === "set") rules.push("unique items");
  if (schema.nullable) rules.push("may be null");
  if (schema["x-kubernetes-preserve-unknown-fields"]) rules.push("fields beyond these are kept as they are");
  for (const rule of schema["x-kubernetes-validations"] ?? []) {
    rules.push(`${code(rule.rule)}${rule.message === undefined ? "" : `: ${rule.message}`}`);
  }
  return rules;
}

function pushRange(
  rules: string[],
  what: string,
  min: number | undefined,
  max: number | undefined,
  exclusiveMin = false,
  exclusiveMax = false,
): void {
  if (min === undefined && max === undefined) return;
  const low = min === undefined ? "" : `${exclusiveMin ? ">" : "≥"} ${min}`;
  const high = max === undefined ? "" : `${exclusiveMax ? "<" : "≤"} ${max}`;
  rules.push(`${what} ${[low, high].filter((s) => s !== "").join(", ")}`);
}

function fieldRows(list: readonly Field[]): string[][] {
  return list.map(({ path, schema, required }) => [
    code(path),
    code(typeOf(schema)),
    required ? "yes" : "",
    schema.default === undefined ? "" : code(JSON.stringify(schema.default)),
    validation(schema).join("; "),
    schema.description ?? "",
  ]);
}

const fieldHeaders = ["field", "type", "required", "default", "validation", "description"];

function kindSection(definition: KindDefinition): string[] {
  const manifest = crdManifest(definition);
  const [served] = manifest.spec.versions;
  if (served === undefined) throw new Error(`${manifest.metadata.name} has no version`);
  const root = served.schema.openAPIV3Schema;
  const { names } = manifest.spec;
  const out = [
    `## ${names.kind}`,
    "",
    `${root.description ?? ""}`,
    "",
    `\`${manifest.spec.group}/${served.name}\`, namespaced; plural \`${names.plural}\`, short names ${names.shortNames.map(code).join(", ")}, categories ${names.categories.map(code).join(", ")}. CRD \`${manifest.metadata.name}\`.`,
    "",
    "`kubectl get` columns (those marked wide only with `-o wide`):",
    "",
    table(
      ["column", "JSONPath", "description"],
      served.additionalPrinterColumns.map((c) => [
        `${c.name}${c.priority === 1 ? " (wide)" : ""}`,
        code(c.jsonPath),
        c.description,
      ]),
    ),
    "",
    `Field selectors (\`kubectl get --field-selector\`): ${(served.selectableFields ?? []).map((f) => code(f.jsonPath.slice(1))).join(", ") || "none"}.`,
    "",
  ];
  for (const part of ["spec", "status"] as const) {
    const schema = root.properties?.[part];
    if (schema === undefined) continue;
    out.push(`### ${names.kind} ${part}`, "");
    if (schema.description !== undefined) out.push(cell(schema.description), "");
    const rules = validation(schema);
    if (rules.length > 0) out.push(`Rules on \`${part}\` as a whole: ${rules.map(cell).join("; ")}.`, "");
    out.push(table(fieldHeaders, fieldRows(fields(schema, part))), "");
  }
  return out;
}

/** The page `npm run generate` writes. */
export function renderApiReference(definitions: readonly KindDefinition[] = kinds): string {
  const out = [
    "<!-- Generated by `npm run generate` from the zod schemas in src/api (the same CRDs as crds/). Do not edit. -->",
    "",
    "# API reference",
    "",
    "Every field of every berth kind, as the CRDs declare it: its type, default, the rules the API server",
    "checks (a value outside them is refused when applied, with the message shown) and what it does.",
    "A field under `spec` is yours to set; `status` is written by the operator. What each kind is for:",
    "[concepts/kinds.md](../concepts/kinds.md).",
    "",
    ...definitions.map((d) => `- [${d.names.kind}](#${d.names.kind.toLowerCase()})`),
    "",
  ];
  for (const definition of definitions) out.push(...kindSection(definition));
  return `${out.join("\n").trimEnd()}\n`;
}
