import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ApiError } from "../errors.ts";
import { listMap, listSet, withRules } from "../kube-schema.ts";
import { toStructural } from "./structural.ts";

function convert(schema: z.ZodType) {
  return toStructural(z.toJSONSchema(schema, { target: "openapi-3.0", io: "input" }), "spec");
}

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError) return `${error.code}: ${error.message}`;
    throw error;
  }
  return undefined;
}

describe("toStructural", () => {
  it("types every node and keeps descriptions, defaults, bounds and required fields", () => {
    const schema = z
      .object({
        count: z.int().min(1).default(1).describe("How many."),
        name: z.string().max(10).describe("A name."),
      })
      .describe("Spec.");
    expect(convert(schema)).toEqual({
      description: "Spec.",
      type: "object",
      properties: {
        count: { description: "How many.", type: "integer", default: 1, minimum: 1 },
        name: { description: "A name.", type: "string", maxLength: 10 },
      },
      required: ["name"],
    });
  });

  it("leaves out zod's implicit safe-integer range", () => {
    const result = convert(z.object({ n: z.int().describe("n") }));
    expect(result.properties?.n).toEqual({ description: "n", type: "integer" });
  });

  it("marks objects that accept any extra field as preserving unknown fields", () => {
    const result = convert(
      z.object({
        loose: z.looseObject({ repo: z.string().describe("r") }).describe("loose"),
        free: z.record(z.string(), z.unknown()).describe("free"),
      }),
    );
    expect(result.properties?.loose).toMatchObject({ "x-kubernetes-preserve-unknown-fields": true });
    expect(result.properties?.loose).not.toHaveProperty("additionalProperties");
    expect(result.properties?.free).toEqual({
      description: "free",
      type: "object",
      "x-kubernetes-preserve-unknown-fields": true,
    });
  });

  it("keeps typed maps as additionalProperties", () => {
    const result = convert(z.object({ labels: z.record(z.string(), z.string()).describe("labels") }));
    expect(result.properties?.labels).toEqual({
      description: "labels",
      type: "object",
      additionalProperties: { type: "string" },
    });
  });

  it("drops zod's date-time regex (the apiserver checks the format) and keeps nullable", () => {
    const result = convert(
      z.object({ at: z.iso.datetime().describe("at"), address: z.string().nullable().describe("address") }),
    );
    expect(result.properties?.at).toEqual({ description: "at", type: "string", format: "date-time" });
    expect(result.properties?.address).toEqual({ description: "address", type: "string", nullable: true });
  });

  it("copies list types and CEL rules", () => {
    const item = z.object({ port: z.int().describe("p") });
    const result = convert(
      withRules(
        z.object({
          ports: listMap(z.array(item).max(4), "port").describe("ports"),
          tags: listSet(z.array(z.string().max(5)).max(3)).describe("tags"),
        }),
        [
          {
            rule: "size(self.ports) > 0",
            message: "need a port",
            fieldPath: ".ports",
            reason: "FieldValueRequired",
          },
        ],
      ),
    );
    expect(result.properties?.ports).toMatchObject({
      "x-kubernetes-list-type": "map",
      "x-kubernetes-list-map-keys": ["port"],
      maxItems: 4,
    });
    expect(result.properties?.tags).toMatchObject({ "x-kubernetes-list-type": "set" });
    expect(result["x-kubernetes-validations"]).toEqual([
      {
        rule: "size(self.ports) > 0",
        message: "need a port",
        fieldPath: ".ports",
        reason: "FieldValueRequired",
      },
    ]);
  });

  it("refuses a field without a description, naming it", () => {
    expect(codeOf(() => convert(z.object({ inner: z.object({ bare: z.string() }).describe("i") })))).toBe(
      "missing_description: spec.inner.bare has no description: add .describe() to its zod schema",
    );
  });

  it("refuses unions, which have no single type", () => {
    expect(codeOf(() => convert(z.object({ u: z.union([z.string(), z.int()]).describe("u") })))).toMatch(
      /^unsupported_schema: spec\.u: keyword "anyOf"/,
    );
  });

  it("refuses values of any type", () => {
    expect(codeOf(() => convert(z.object({ v: z.unknown().describe("v") })))).toBe(
      "unsupported_schema: spec.v: a value without a single type cannot be expressed in a structural CRD schema",
    );
  });

  it("refuses typed additionalProperties beside properties", () => {
    const schema = z.object({ known: z.string().describe("k") }).catchall(z.string());
    expect(codeOf(() => convert(schema))).toMatch(/^unsupported_schema: spec: typed additionalProperties/);
  });
});
