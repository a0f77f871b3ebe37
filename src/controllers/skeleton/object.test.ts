import { describe, expect, it } from "vitest";
import { z } from "zod";
import { parseForReconcile } from "./object.ts";

const schema = z.object({
  metadata: z.object({ name: z.string(), deletionTimestamp: z.string().optional() }),
  spec: z.object({
    image: z.string(),
    ports: z.array(z.object({ port: z.number() })).default([]),
    deletionPolicy: z.enum(["Delete", "Orphan"]).default("Delete"),
  }),
  status: z.object({ appId: z.string() }).optional(),
});

const object = (spec: Record<string, unknown>, deleting: boolean) => ({
  metadata: { name: "a", ...(deleting ? { deletionTimestamp: "2030-01-01T00:00:00Z" } : {}) },
  spec: { image: "nginx", ...spec },
  status: { appId: "x" },
});

describe("parseForReconcile", () => {
  it("refuses an object that doesn't parse while it lives (InvalidSpec)", () => {
    expect(parseForReconcile(schema, object({ ports: [{ port: "80" }] }, false)).success).toBe(false);
  });

  it("parses a deleting object without its invalid spec fields, so its deletion runs", () => {
    const parsed = parseForReconcile(schema, object({ ports: [{ port: "80" }], extra: 1 }, true));
    expect(parsed.success && parsed.data).toMatchObject({ spec: { ports: [] }, status: { appId: "x" } });
  });

  it("guesses nothing when the deletion policy itself doesn't parse", () => {
    expect(parseForReconcile(schema, object({ deletionPolicy: "orphan" }, true)).success).toBe(false);
  });
});
