import { describe, expect, it } from "vitest";
import { StringPool } from "./string-pool.ts";

const app = (name: string) =>
  JSON.parse(
    JSON.stringify({
      apiVersion: "berth.dev/v1alpha1",
      kind: "App",
      metadata: {
        name,
        namespace: "team",
        uid: `uid-${name}`,
        resourceVersion: `rv-${name}`,
        creationTimestamp: "2026-01-01T00:00:00Z",
        labels: { tier: "web" },
      },
      spec: { image: "nginx:1.27", ports: [{ port: 80, protocol: "http80_load_balancer" }], replicas: 2 },
      status: { conditions: [{ type: "Ready", status: "False", reason: "Suspended", message: "suspended" }] },
    }),
  );

describe("StringPool", () => {
  it("leaves every value as it was and pools the repeated ones, never an object's own identity", () => {
    const pool = new StringPool();
    const first = app("a");
    const expected = structuredClone(first);
    expect(pool.internObject(first)).toEqual(expected);
    const pooled = pool.size;
    // A second object brings only its identity (not pooled) and nothing new otherwise.
    pool.internObject(app("b"));
    expect(pool.size).toBe(pooled);
    expect(pooled).toBe(11);
  });

  it("stays within its bound: once full it starts afresh", () => {
    const pool = new StringPool(3);
    for (const value of ["a", "b", "c"]) pool.intern(value);
    expect(pool.size).toBe(3);
    expect(pool.intern("d")).toBe("d");
    expect(pool.size).toBe(1);
  });

  it("leaves long strings out", () => {
    const pool = new StringPool();
    const long = "x".repeat(513);
    expect(pool.intern(long)).toBe(long);
    expect(pool.size).toBe(0);
  });
});
