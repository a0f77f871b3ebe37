import { describe, expect, it } from "vitest";
import type { Resource } from "./kind.ts";
import { ownedValue, withRestoredIdentity } from "./owned.ts";

const owns = ["growthOrders", "removedCount"];

describe("ownedValue", () => {
  it("keeps the fields a kind owns, its owner and the intents that may still act", () => {
    const status = {
      orderId: "o1",
      growthOrders: [{ id: "o2", count: 1, generation: 2 }],
      removedCount: 0,
      servers: [{ address: "0x1" }],
      owner: { userId: "u1", credential: "key-1" },
      intents: [
        { operation: "growServers", state: "Pending" },
        { operation: "orderServers", state: "Refused" },
        { operation: "shrinkServers", state: "NotFound" },
      ],
    };
    expect(JSON.parse(ownedValue(status, owns, "team/batch") ?? "")).toEqual({
      of: "team/batch",
      growthOrders: status.growthOrders,
      removedCount: 0,
      owner: status.owner,
      intents: [
        { operation: "growServers", state: "Pending" },
        { operation: "shrinkServers", state: "NotFound" },
      ],
    });
  });

  it("keeps only the named fields of each entry of a list it keeps in part", () => {
    const replacements = [
      { address: "0x1", orderId: "o3", request: "0x1@ticket-7", at: "2030-01-01T00:00:00Z" },
    ];
    const kept = ownedValue(
      { replacements },
      [{ field: "replacements", keep: ["address", "orderId", "at"] }],
      "team/batch",
    );
    expect(JSON.parse(kept ?? "")).toEqual({
      of: "team/batch",
      replacements: [{ address: "0x1", orderId: "o3", at: "2030-01-01T00:00:00Z" }],
    });
  });

  it("is nothing when the status owns nothing", () => {
    expect(ownedValue({ orderId: "o1", growthOrders: [], intents: [] }, owns, "team/batch")).toBeUndefined();
  });
});

describe("withRestoredIdentity", () => {
  // Whose it is (`of`) says who may act on it: never put into status.
  const owned = JSON.stringify({
    of: "team/batch",
    growthOrders: [{ id: "o2", count: 1, generation: 2 }],
    owner: { userId: "u1", credential: "key-1" },
  });
  const restored = (
    status: Record<string, unknown> | undefined,
    annotations: Record<string, string>,
  ): Resource => withRestoredIdentity({ metadata: { annotations }, spec: {}, status }, "orderId");

  it("puts the ID, the owner and what it owns back into a status that lost them", () => {
    const resource = restored(undefined, {
      "berth.dev/external-id": "o1",
      "berth.dev/owner": "u1",
      "berth.dev/owned": owned,
    });
    expect(resource.status).toEqual({
      orderId: "o1",
      owner: { userId: "u1", credential: "key-1" },
      growthOrders: [{ id: "o2", count: 1, generation: 2 }],
    });
  });

  it("restores a Pending intent of a resource whose first call had no answer yet", () => {
    const pending = JSON.stringify({ intents: [{ operation: "orderServers", state: "Pending" }] });
    expect(restored({}, { "berth.dev/owned": pending }).status).toEqual({
      intents: [{ operation: "orderServers", state: "Pending" }],
    });
  });

  it("leaves a status that knows its ID, and ignores an annotation that is not an object", () => {
    const current = { orderId: "o1", growthOrders: [] };
    expect(restored(current, { "berth.dev/external-id": "o1", "berth.dev/owned": owned }).status).toBe(
      current,
    );
    expect(restored(undefined, { "berth.dev/external-id": "o1", "berth.dev/owned": "[1" }).status).toEqual({
      orderId: "o1",
    });
  });
});
