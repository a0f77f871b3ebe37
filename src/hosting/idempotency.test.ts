import { describe, expect, it } from "vitest";
import { canonicalJson, idempotencyKey, maxIdempotencyKeyLength } from "./idempotency.ts";

const uid = "3f1c9a52-8e0b-4d7e-9a61-0c2f5b7d8e90";

describe("idempotencyKey", () => {
  it("is the same for the same owner, operation and arguments, whatever the key order", () => {
    const a = idempotencyKey(uid, "createApp", {
      name: "web",
      config: { image: "nginx", ports: [{ port: 80 }] },
    });
    const b = idempotencyKey(uid, "createApp", {
      config: { ports: [{ port: 80 }], image: "nginx" },
      name: "web",
    });
    expect(a).toBe(b);
  });

  it("differs when the owner, the operation or any argument differs", () => {
    const base = idempotencyKey(uid, "provisionServers", { dryRun: true, count: 2 });
    expect(idempotencyKey(uid, "provisionServers", { dryRun: false, count: 2 })).not.toBe(base);
    expect(idempotencyKey(uid, "provisionServers", { dryRun: true, count: 3 })).not.toBe(base);
    expect(idempotencyKey(uid, "createGrid", { dryRun: true, count: 2 })).not.toBe(base);
    expect(idempotencyKey("another-uid", "provisionServers", { dryRun: true, count: 2 })).not.toBe(base);
  });

  it("keeps array order significant and ignores undefined properties", () => {
    expect(idempotencyKey(uid, "op", { a: [1, 2] })).not.toBe(idempotencyKey(uid, "op", { a: [2, 1] }));
    expect(idempotencyKey(uid, "op", { a: 1, b: undefined })).toBe(idempotencyKey(uid, "op", { a: 1 }));
  });

  it("is at most 255 characters without whitespace, even for long or spaced owners and operations", () => {
    const key = idempotencyKey(`${"x".repeat(300)} with spaces`, "create app\tnow", {
      big: "y".repeat(10_000),
    });
    expect(key.length).toBeLessThanOrEqual(maxIdempotencyKeyLength);
    expect(key).not.toMatch(/\s/);
  });

  it("keeps plain owner and operation readable, for support", () => {
    expect(idempotencyKey(uid, "createProject", { name: "p" })).toMatch(
      new RegExp(`^createProject\\.${uid}\\.[0-9a-f]{40}$`),
    );
  });

  it("refuses arguments with no JSON form and empty owners", () => {
    expect(() => idempotencyKey(uid, "op", { n: Number.NaN })).toThrow(/args.n is NaN/);
    expect(() => idempotencyKey(uid, "op", { n: 1n })).toThrow(/args.n is a bigint/);
    expect(() => idempotencyKey("", "op", {})).toThrow(/ownerUid/);
  });
});

describe("canonicalJson", () => {
  it("sorts keys at every depth", () => {
    expect(canonicalJson({ b: 1, a: { d: [{ z: 1, y: 2 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[{"y":2,"z":1}]},"b":1}',
    );
  });
});
