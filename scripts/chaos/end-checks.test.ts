import { describe, expect, it } from "vitest";
import type { Condition } from "./cluster.ts";
import { checkConverged, checkLogText, checkStalledCalls } from "./end-checks.ts";
import { inCluster, ready, serverOrder, stalled, world } from "./invariant-fixtures.ts";

const details = (w: ReturnType<typeof world>) =>
  w.violations.list().map((v) => [v.invariant, v.subject, v.detail]);

describe("a Stalled resource's calls", () => {
  const calls = (conditions: Condition[], status: Record<string, unknown>, count: number, minutes = 1) => {
    const so = serverOrder();
    const w = world(so);
    w.tracked(so).last = inCluster(so, status, conditions);
    const paths = [
      ...Array.from({ length: count }, () => "/v1/servers/orders/Ord_1"),
      "/v1/servers/orders/ord_2",
      "/v1/projects",
    ];
    checkStalledCalls(w.ledger.created(), paths, minutes, w.violations);
    return w;
  };

  it("counts the calls whose path names its ID, in any case, per simulated minute", () => {
    expect(calls([stalled("ServerFailed")], { orderId: "ORD_1" }, 10, 2).found()).toEqual([]);
    expect(details(calls([stalled("ServerFailed")], { orderId: "ORD_1" }, 11, 2))).toEqual([
      [
        "stalled-makes-few-calls",
        "ns/ServerOrder/so",
        "11 calls in 2.0 simulated minutes while Stalled: generation 3; Stalled=True/ServerFailed (gen 3): ",
      ],
    ]);
  });

  it("leaves alone a resource not Stalled, Stalled False, without an ID, or never read", () => {
    expect(calls([ready], { orderId: "ord_1" }, 50).found()).toEqual([]);
    expect(
      calls([{ ...stalled("ServerFailed"), status: "False" }], { orderId: "ord_1" }, 50).found(),
    ).toEqual([]);
    expect(calls([stalled("ServerFailed")], {}, 50).found()).toEqual([]);
    const w = world(serverOrder());
    checkStalledCalls(w.ledger.created(), ["/v1/servers/orders/ord_1"], 1, w.violations);
    expect(w.found()).toEqual([]);
  });
});

describe("the operator's log", () => {
  it("names each key found, how many lines hold it and one of them with every copy of the key hidden; returns the lines searched", () => {
    const w = world();
    const a = "bk_live_aaaa1111";
    const b = "bk_live_bbbb2222";
    const long = `{"msg":"${"x".repeat(300)}"}`;
    const text = `{"key":"${a}","again":"${a}"}\n${long}\n{"key":"${a}"}\n\n{"ok":true}\n`;
    expect(checkLogText(text, [a, b], w.violations)).toBe(4);
    expect(details(w)).toEqual([
      ["no-key-in-logs", "key …1111", '2 log lines, e.g. {"key":"<key>","again":"<key>"}'],
    ]);
  });

  it("shows at most 200 characters of a line", () => {
    const w = world();
    const token = "bk_live_cccc3333";
    checkLogText(`${token}${"y".repeat(400)}\n`, [token], w.violations);
    expect(w.violations.list()[0]?.detail).toBe(`1 log lines, e.g. <key>${"y".repeat(195)}`);
  });

  it("searched nothing when there was no key to look for", () => {
    expect(checkLogText("a\nb\n", [], world().violations)).toBe(0);
  });
});

describe("convergence", () => {
  it("names how many were unsettled, and one of them when there is one", () => {
    const w = world();
    checkConverged(undefined, [], 90, w.violations);
    expect(details(w)).toEqual([["converges", "resources", "0 resources unsettled after 90 s"]]);
    const v = world();
    checkConverged(undefined, ["a", "b"], 30, v.violations);
    expect(details(v)).toEqual([["converges", "resources", "2 resources unsettled after 30 s, e.g. a"]]);
  });
});
