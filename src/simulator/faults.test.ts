import { describe, expect, it } from "vitest";
import { type Fault, FaultTable, faultProblems, faultSchema } from "./faults.ts";

/** A random source that answers these numbers in turn. */
function rolls(...values: number[]): () => number {
  let i = 0;
  return () => values[i++ % values.length] ?? 0;
}

describe("FaultTable", () => {
  it("hits the first matching rule, by operation or *", () => {
    const table = new FaultTable();
    table.add({ operation: "createApp", status: 500 });
    table.add({ operation: "*", status: 503 });
    expect(table.take("createApp")?.status).toBe(500);
    expect(table.take("getMe")?.status).toBe(503);
  });

  it("with a keyId, hits only that key's requests", () => {
    const table = new FaultTable();
    table.add({ operation: "*", status: 503, keyId: "key_a" });
    expect(table.take("listApps", Math.random, "key_b")).toBeUndefined();
    expect(table.take("listApps")).toBeUndefined();
    expect(table.take("listApps", Math.random, "key_a")?.status).toBe(503);
  });

  it("takes 429 rules only at admission, and the others only before the operation", () => {
    const table = new FaultTable();
    table.add({ operation: "*", status: 429, retryAfterSec: 60 });
    table.add({ operation: "*", status: 500 });
    expect(table.take("listApps", Math.random, "key_a", "admission")?.status).toBe(429);
    expect(table.take("listApps", Math.random, "key_a", "operation")?.status).toBe(500);
  });

  it("counts down times and drops the rule when spent", () => {
    const table = new FaultTable();
    table.add({ operation: "*", status: 500, times: 2 });
    expect(table.take("getMe")?.times).toBe(1);
    expect(table.take("getMe")?.times).toBe(0);
    expect(table.take("getMe")).toBeUndefined();
    expect(table.list()).toEqual([]);
    expect(table.spent()).toEqual([expect.objectContaining({ times: 0, hits: 2 })]);
  });

  it("counts each rule's hits, not the requests skip lets through or a missed roll", () => {
    const table = new FaultTable();
    table.add({ operation: "getMe", status: 500, skip: 1, probability: 0.5 });
    table.take("getMe", rolls(0.1));
    table.take("getMe", rolls(0.9));
    table.take("getMe", rolls(0.1));
    expect(table.list()).toEqual([expect.objectContaining({ hits: 1 })]);
  });

  it("with a probability, hits a request only when its roll is below it", () => {
    const table = new FaultTable();
    table.add({ operation: "*", status: 500, probability: 0.2 });
    expect(table.take("getMe", rolls(0.19))?.status).toBe(500);
    expect(table.take("getMe", rolls(0.2))).toBeUndefined();
    expect(table.take("getMe", rolls(0.9))).toBeUndefined();
  });

  it("a rule whose roll misses lets the next matching rule try, and spends none of its times", () => {
    const table = new FaultTable();
    table.add({ operation: "createApp", dropResponse: true, probability: 0.05, times: 1 });
    table.add({ operation: "*", status: 502, probability: 0.5 });
    expect(table.take("createApp", rolls(0.5, 0.1))?.status).toBe(502);
    expect(table.take("createApp", rolls(0.5, 0.7))).toBeUndefined();
    expect(table.list()[0]?.times).toBe(1);
    expect(table.take("createApp", rolls(0.01))?.dropResponse).toBe(true);
    expect(table.list()).toHaveLength(1);
  });

  it("hits about the given share of many requests", () => {
    const table = new FaultTable();
    table.add({ operation: "*", status: 500, probability: 0.2 });
    let state = 1;
    // A small deterministic generator (LCG), so the share is the same on every run.
    const random = () => {
      state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
      return state / 2 ** 31;
    };
    let hits = 0;
    for (let i = 0; i < 10_000; i++) if (table.take("getMe", random) !== undefined) hits++;
    expect(hits / 10_000).toBeGreaterThan(0.18);
    expect(hits / 10_000).toBeLessThan(0.22);
  });

  it("refuses a probability outside (0, 1]", () => {
    expect(faultSchema.safeParse({ operation: "*", status: 500, probability: 0 }).success).toBe(false);
    expect(faultSchema.safeParse({ operation: "*", status: 500, probability: 1.5 }).success).toBe(false);
    expect(faultSchema.safeParse({ operation: "*", status: 500, probability: 1 }).success).toBe(true);
  });
});

describe("faultProblems", () => {
  const targets = {
    operations: new Map([
      ["createApp", { idempotent: true }],
      ["getMe", { idempotent: false }],
    ]),
    keyExists: (id: string) => id === "key_a",
  };
  const problems = (fault: Fault) => faultProblems(fault, targets).map((p) => p.path);

  it("accepts a fault that can fire", () => {
    expect(problems({ operation: "createApp", dropResponse: true, forgetIdempotency: true })).toEqual([]);
    expect(problems({ operation: "*", status: 429, retryAfterSec: 5, keyId: "key_a" })).toEqual([]);
    expect(problems({ operation: "getMe", latencyMs: 10 })).toEqual([]);
  });

  it("names an unknown operation and a key that does not exist", () => {
    expect(problems({ operation: "nonexistentOp", status: 500 })).toEqual(["operation"]);
    expect(problems({ operation: "*", status: 500, keyId: "key_typo" })).toEqual(["keyId"]);
  });

  it("refuses a fault that changes nothing", () => {
    expect(problems({ operation: "getMe" })).toEqual(["fault"]);
    expect(problems({ operation: "getMe", times: 3 })).toEqual(["fault"]);
    expect(problems({ operation: "getMe", latencyMs: 0 })).toEqual(["latencyMs"]);
    expect(problems({ operation: "getMe", latencyMs: 5, retryAfterSec: 5 })).toEqual(["retryAfterSec"]);
    expect(problems({ operation: "createApp", latencyMs: 5, forgetIdempotency: true })).toEqual([
      "forgetIdempotency",
    ]);
    expect(problems({ operation: "getMe", dropResponse: true, forgetIdempotency: true })).toEqual([
      "forgetIdempotency",
    ]);
  });
});
