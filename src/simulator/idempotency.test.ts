import { describe, expect, it } from "vitest";
import {
  checkIdempotencyKey,
  fingerprint,
  IDEMPOTENCY_RETENTION_MS,
  IdempotencyStore,
} from "./idempotency.ts";

describe("idempotency", () => {
  it("keys are 1 to 255 characters without whitespace", () => {
    expect(checkIdempotencyKey("a")).toBeUndefined();
    expect(checkIdempotencyKey("a".repeat(255))).toBeUndefined();
    expect(checkIdempotencyKey("")).toMatch(/1 to 255/);
    expect(checkIdempotencyKey("a".repeat(256))).toMatch(/1 to 255/);
    expect(checkIdempotencyKey("a\nb")).toMatch(/whitespace/);
  });

  it("fingerprints ignore key order", () => {
    expect(fingerprint({ a: 1, b: { c: [1, 2], d: null } })).toBe(
      fingerprint({ b: { d: null, c: [1, 2] }, a: 1 }),
    );
    expect(fingerprint({ a: [1, 2] })).not.toBe(fingerprint({ a: [2, 1] }));
  });

  it("replays, conflicts, reports in-progress, and forgets after 24 hours", () => {
    const store = new IdempotencyStore();
    expect(store.begin("k", "args", 0, 2000)).toEqual({ kind: "new" });
    expect(store.begin("k", "args", 1, 1)).toEqual({ kind: "in_progress", readyAt: 2000 });
    store.complete("k", { status: 201, body: { id: "x" } });
    expect(store.begin("k", "args", 2, 1)).toEqual({
      kind: "replay",
      response: { status: 201, body: { id: "x" } },
    });
    expect(() => store.begin("k", "other", 3, 1)).toThrow(
      expect.objectContaining({ code: "idempotency_conflict" }),
    );
    expect(store.begin("k", "other", IDEMPOTENCY_RETENTION_MS, 1)).toEqual({ kind: "new" });
  });

  it("an abandoned request frees its key", () => {
    const store = new IdempotencyStore();
    store.begin("k", "args", 0, 1);
    store.abandon("k");
    expect(store.begin("k", "args", 0, 1)).toEqual({ kind: "new" });
  });
});
