import fc from "fast-check";
import { crdManifest } from "../../api/crd/definition.ts";
import type { StructuralSchema } from "../../api/crd/structural.ts";
import type { KindDefinition } from "../../api/resource.ts";

// For property tests (not shipped behaviour): specs drawn from the CRD schema berth generates from
// its zod schemas, so every field a user may write, within its documented bounds, is tried.

/** Strings the service normalises or a YAML block scalar makes: trailing newlines, padding, spaces only. */
const awkwardStrings = ["web app\n", "  padded  ", " ", "x"];

/** Arbitrary `spec` objects for a kind, as the apiserver's structural schema allows them (CEL aside). */
export function specArbitrary(definition: KindDefinition): fc.Arbitrary<Record<string, unknown>> {
  const root = crdManifest(definition).spec.versions[0]?.schema.openAPIV3Schema as StructuralSchema;
  const spec = root.properties?.spec;
  if (spec === undefined) throw new TypeError(`${definition.names.kind} has no spec schema`);
  return nodeArbitrary(spec) as fc.Arbitrary<Record<string, unknown>>;
}

function nodeArbitrary(node: StructuralSchema): fc.Arbitrary<unknown> {
  if (node.enum !== undefined) return fc.constantFrom(...node.enum);
  switch (node.type) {
    case "object":
      return objectArbitrary(node);
    case "array":
      return fc.array(nodeArbitrary(node.items ?? {}), {
        minLength: node.minItems ?? 0,
        maxLength: Math.min(node.maxItems ?? 4, 4),
      });
    case "string":
      return stringArbitrary(node);
    case "integer":
      return fc.integer({ min: node.minimum ?? -1000, max: node.maximum ?? 1000 });
    case "number":
      return fc.double({ min: node.minimum ?? -1000, max: node.maximum ?? 1000, noNaN: true });
    case "boolean":
      return fc.boolean();
    default:
      return fc.constant({});
  }
}

function objectArbitrary(node: StructuralSchema): fc.Arbitrary<unknown> {
  if (node.properties === undefined) {
    if (node.additionalProperties === undefined) return fc.constant({});
    return fc.dictionary(
      fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/),
      nodeArbitrary(node.additionalProperties),
      {
        maxKeys: 3,
      },
    );
  }
  const fields = Object.fromEntries(
    Object.entries(node.properties).map(([name, child]) => [name, nodeArbitrary(child)]),
  );
  return fc.record(fields, { requiredKeys: node.required ?? [] });
}

function stringArbitrary(node: StructuralSchema): fc.Arbitrary<string> {
  const minLength = node.minLength ?? 0;
  const maxLength = node.maxLength ?? 64;
  const fits = (text: string) => text.length >= minLength && text.length <= maxLength;
  const pattern = node.pattern ?? celPattern(node);
  if (pattern !== undefined) return fc.stringMatching(new RegExp(pattern)).filter(fits);
  return fc
    .oneof(fc.string({ minLength, maxLength: Math.min(maxLength, 40) }), fc.constantFrom(...awkwardStrings))
    .filter(fits);
}

/** The regular expression of a `self.matches('…')` CEL rule on a string field. */
function celPattern(node: StructuralSchema): string | undefined {
  for (const { rule } of node["x-kubernetes-validations"] ?? []) {
    const match = /^self\.matches\('(.+)'\)$/.exec(rule);
    if (match?.[1] !== undefined) return match[1];
  }
  return undefined;
}
