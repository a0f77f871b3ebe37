import { describe, expect, it } from "vitest";
import { routes } from "../routes/index.ts";
import { classify } from "./jsonrpc.ts";
import { buildTools } from "./tool-table.ts";

describe("the MCP tool table", () => {
  const tools = buildTools();

  it("gives every tool a closed object schema whose every input is described", () => {
    for (const { listing } of tools.values()) {
      const schema = listing.inputSchema as {
        type: string;
        properties: Record<string, { description?: string }>;
        additionalProperties: boolean;
      };
      expect(schema.type, listing.name).toBe("object");
      expect(schema.additionalProperties, listing.name).toBe(false);
      for (const [name, property] of Object.entries(schema.properties)) {
        expect(property.description, `${listing.name}.${name}`).toBeTruthy();
      }
    }
  });

  it("requires idempotencyKey exactly on the tools whose operation is idempotent, and offers confirm on destructive ones", () => {
    const required = (name: string) => (tools.get(name)?.listing.inputSchema.required as string[]) ?? [];
    const keyed = [...tools.keys()].filter((name) => required(name).includes("idempotencyKey")).sort();
    expect(keyed).toEqual(["create_app", "create_project", "provision_servers", "replace_server"]);
    for (const [name, tool] of tools) {
      const confirm = (tool.listing.inputSchema.properties as Record<string, unknown>).confirm;
      expect(confirm !== undefined, name).toBe(tool.spec.confirm === true);
      expect(required(name)).not.toContain("confirm");
    }
  });

  it("refuses to build over a table that lacks an operation", () => {
    expect(() => buildTools(routes)).toThrow(/no operation named readDocs/);
  });
});

describe("JSON-RPC classification", () => {
  it("tells requests, notifications and responses apart, and keeps the id of an invalid request", () => {
    expect(classify({ jsonrpc: "2.0", id: 7, method: "ping" })).toMatchObject({ kind: "request" });
    expect(classify({ jsonrpc: "2.0", method: "notifications/initialized" })).toEqual({
      kind: "notification",
      method: "notifications/initialized",
    });
    expect(classify({ jsonrpc: "2.0", id: "a", result: {} })).toEqual({ kind: "response" });
    expect(classify({ jsonrpc: "2.0", id: null, method: "ping" })).toMatchObject({
      kind: "invalid",
      id: null,
    });
    expect(classify({ jsonrpc: "1.0", id: "x", method: "ping" })).toMatchObject({ kind: "invalid", id: "x" });
    expect(classify("ping")).toMatchObject({ kind: "invalid", id: null });
  });
});
