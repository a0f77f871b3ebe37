import { describe, expect, it } from "vitest";
import {
  cluster,
  inCluster,
  placedAt,
  provision,
  serverOrder,
  serverPrice,
  service,
  world,
} from "./invariant-fixtures.ts";
import type { PlannedResource } from "./plan.ts";
import type { RequestRecord } from "./simulator.ts";
import { describeSpendLimit, LimitTimeline, planSpendLimit, SpendHistory } from "./spend.ts";

const t0 = Date.now() - 60_000;
const cost = { hourly: { amount: "0.1040", currency: "USD" } };
const first = serverOrder({ count: 2 });
const second: PlannedResource = { ...serverOrder({ count: 1 }), name: "so-2", key: "ns/ServerOrder/so-2" };

interface Story {
  /** ord_1 (first, 2 servers) placed at t0 + 1 s; ord_2 (second, 1 server) placed at t0 + 15 s. */
  calls?: RequestRecord[];
  /** ord_1's server states in the readings at t0 + 10 s and t0 + 20 s. */
  servers?: [string[], string[]];
  /** How `first` is listed in the readings at t0 + 10 s and t0 + 20 s. */
  holder?: [
    { uid?: string; deleting?: boolean; absent?: boolean },
    { uid?: string; deleting?: boolean; absent?: boolean },
  ];
  ord1State?: string;
  /** Another namespace's order made at the very moment of ord_2. */
  elsewhere?: boolean;
}

/** Room for two servers: `first` holds two, `second` orders one more at t0 + 15 s. */
function story(s: Story = {}) {
  const { ledger, violations, found } = world(first, second);
  const history = new SpendHistory({ namespace: "ns", name: "limit", limitMicros: 2 * serverPrice }, ledger);
  const calls = s.calls ?? [provision("req_1", t0 + 1_000), provision("req_2", t0 + 15_000)];
  const [early, late] = s.servers ?? [
    ["running", "running"],
    ["running", "running"],
  ];
  const holders = s.holder ?? [{}, {}];
  const times = [t0 + 10_000, t0 + 20_000];
  times.forEach((at, i) => {
    const h = holders[i] ?? {};
    const held = inCluster(first, { orderId: "ord_1", cost }, undefined, h.deleting === true);
    const firstListed = { ...held, metadata: { ...held.metadata, uid: h.uid ?? held.metadata.uid } };
    const secondListed = inCluster(second, i === 1 ? { orderId: "ord_2" } : {});
    const resources = [
      ...(h.absent === true ? [] : [{ kind: "ServerOrder" as const, resource: firstListed }]),
      { kind: "ServerOrder" as const, resource: secondListed },
    ];
    history.observeCluster(cluster(...resources), at);
    const orders = [
      { id: "ord_1", state: s.ord1State ?? "completed", count: 2, servers: i === 0 ? early : late },
    ];
    if (i === 1) orders.push({ id: "ord_2", state: "provisioning", count: 1, servers: [] });
    if (i === 1 && s.elsewhere === true)
      orders.push({ id: "ord_9", state: "provisioning", count: 3, servers: [] });
    // With another namespace's order at the call's moment, this one's came a little later (no call of its own).
    const created = {
      ord_1: t0 + 1_000,
      ord_2: t0 + (s.elsewhere === true ? 15_600 : 15_000),
      ord_9: t0 + 15_000,
    };
    history.observeService(placedAt(service({ orders }), created), at);
  });
  history.addCalls(calls);
  const summary = history.check((sim) => sim, violations);
  return { found: found(), detail: violations.list()[0]?.detail, summary };
}

describe("spend within the namespace's limit", () => {
  it("finds a call that takes the namespace past its limit, and names the call and what was counted", () => {
    const { found, detail, summary } = story();
    expect(found).toEqual(["spend-within-limit"]);
    expect(detail).toContain("provisionServers req_2 placed ord_2 (1 × 0.0520/h)");
    expect(detail).toContain("order ord_1 0.1040");
    expect(summary).toMatchObject({ orders: 2, peakMicros: 3 * serverPrice });
  });

  it("counts only calls the service acted on: not a dry run, not a replay", () => {
    const dry = [provision("req_1", t0 + 1_000), provision("req_2", t0 + 15_000, 200)];
    expect(story({ calls: dry }).found).toEqual([]);
    const replayed = [provision("req_1", t0 + 1_000), provision("req_2", t0 + 15_000, 202, true)];
    expect(story({ calls: replayed }).found).toEqual([]);
  });

  it("counts a replacement as an order of its own", () => {
    const calls = [
      provision("req_1", t0 + 1_000),
      provision("req_2", t0 + 15_000, 202, false, "replaceServer"),
    ];
    expect(story({ calls }).detail).toContain("replaceServer req_2 placed ord_2");
  });

  it("counts a server at what the service charges on both sides of the call: hibernated at its disk, leaving at nothing", () => {
    const hibernated: [string[], string[]] = [
      ["hibernated", "hibernated"],
      ["hibernated", "hibernated"],
    ];
    expect(story({ servers: hibernated }).found).toEqual([]);
    // One of them still ran: 1.1 servers' worth and the new one pass two.
    expect(
      story({
        servers: [
          ["running", "hibernated"],
          ["running", "hibernated"],
        ],
      }).found,
    ).toEqual(["spend-within-limit"]);
    // Hibernated between the readings: when is not known, so the lesser charge counts.
    const between: [string[], string[]] = [
      ["running", "running"],
      ["hibernated", "hibernated"],
    ];
    expect(story({ servers: between }).found).toEqual([]);
    expect(story({ servers: [["running", "deprovisioning"], ["running"]] }).found).toEqual([]);
    expect(story({ ord1State: "failed" }).found).toEqual([]);
  });

  it("leaves out what berth no longer counts: a ServerOrder deleted (Orphan) or restored without status", () => {
    expect(story({ holder: [{}, { deleting: true }] }).found).toEqual([]);
    expect(story({ holder: [{}, { absent: true }] }).found).toEqual([]);
    expect(story({ holder: [{ uid: "restored" }, { uid: "restored" }] }).found).toEqual([
      "spend-within-limit",
    ]);
    expect(story({ holder: [{}, { uid: "restored" }] }).found).toEqual([]);
  });

  it("matches each call to the order made at its time, of whichever namespace", () => {
    const calls = [provision("req_1", t0 + 1_000), provision("req_9", t0 + 15_000)];
    // The call at that moment placed another namespace's order (the nearest), not ord_2 600 ms later.
    expect(story({ calls, elsewhere: true }).found).toEqual([]);
    const both = [...calls, provision("req_2", t0 + 15_600)];
    expect(story({ calls: both, elsewhere: true }).detail).toContain("req_2 placed ord_2");
  });

  it("sets the first namespace's limit 15 % above its orders within budget at their first counts", () => {
    const within = serverOrder({ count: 2 });
    const over = {
      ...serverOrder({ count: 3, overBudget: true }),
      name: "so-over",
      key: "ns/ServerOrder/so-over",
    };
    const elsewhere = { ...serverOrder({ count: 4 }), namespace: "other", key: "other/ServerOrder/so" };
    const limit = planSpendLimit({
      namespaces: [
        { name: "ns", credentials: "own" },
        { name: "other", credentials: "own" },
      ],
      resources: [within, over, elsewhere],
    });
    expect(limit).toEqual({
      namespace: "ns",
      name: "limit",
      limitMicros: Math.ceil((2 * serverPrice * 1.15) / 10_000) * 10_000,
    });
  });
});

describe("the SpendLimit at the end of a run", () => {
  const now = Date.parse("2026-01-01T12:03:00Z");
  it("names each open commitment and refusal with its age", () => {
    const status = {
      committed: { amount: "0.188", currency: "USD" },
      commitments: [
        { resource: "App/app-5", uid: "u", hourly: "0.20", adds: "0.20", since: "2026-01-01T12:01:30Z" },
      ],
      refused: [{ resource: "ServerOrder/so-1", adds: "0.312", since: "2026-01-01T12:02:00Z" }],
    };
    expect(describeSpendLimit(status, now)).toBe(
      "0.188/h committed (App/app-5 at 0.20/h for 90 s); refused: ServerOrder/so-1 for 60 s",
    );
  });

  it("a SpendLimit not counted yet, and one whose status is not what berth writes", () => {
    expect(describeSpendLimit(undefined, now)).toBe("0/h committed; refused: none");
    expect(describeSpendLimit({ commitments: "many" }, now)).toMatch(/^status unreadable/);
  });
});

describe("spend within the limit, for every call that adds spend", () => {
  const limit = { namespace: "ns", name: "limit", limitMicros: 500_000 };
  const appCall = (operation: string, at: number, status = 200): RequestRecord => ({
    at: new Date(at).toISOString(),
    path: operation === "createApp" ? "/v1/projects/prj_1/apps" : "/v1/projects/prj_1/apps/app_1",
    requestId: `req_${operation}_${at}`,
    operation,
    status,
    keyId: "key_a",
    replayed: false,
    dropped: false,
  });
  /** The app's charge (micros/h) in the readings at t0 + 10 s, + 20 s and + 25 s; `call` made at t0 + 15 s. */
  function appStory(charges: [number, number, number], call = appCall("updateApp", t0 + 15_000), moves = 1) {
    const { ledger, violations, found } = world();
    const history = new SpendHistory(limit, ledger);
    [10_000, 20_000, 25_000].forEach((offset, i) => {
      const snapshot = service({ projects: [{ id: "prj_1", name: "ns.p-0" }] });
      const charged = (charges[i] ?? 0) / 1e6;
      const app = {
        id: "app_1",
        name: "ns.app-0",
        projectId: "prj_1",
        currentHourlyCost: charged.toFixed(4),
      };
      history.observeService({ ...snapshot, apps: [app] }, t0 + offset);
    });
    history.addAppCalls([call]);
    const summary = history.check((sim) => sim, violations, moves);
    return { found: found(), detail: violations.list()[0]?.detail, summary };
  }

  it("finds a hardware update that takes a running app past the limit, and names the call", () => {
    const resized = appStory([12_000, 2_012_000, 2_012_000]);
    expect(resized.found).toEqual(["spend-within-limit"]);
    expect(resized.detail).toContain("updateApp /v1/projects/prj_1/apps/app_1");
    expect(resized.detail).toContain("above its SpendLimit 0.5000/h");
    expect(resized.summary.appCalls).toBe(1);
    expect(appStory([12_000, 2_012_000, 2_012_000], appCall("restartApp", t0 + 15_000)).found).toEqual([
      "spend-within-limit",
    ]);
  });

  it("passes a resize within the limit, an update that adds nothing, and a call the service refused", () => {
    const update = appCall("updateApp", t0 + 15_000);
    expect(appStory([12_000, 412_000, 412_000]).summary.appCalls).toBe(1);
    expect(appStory([12_000, 412_000, 412_000]).found).toEqual([]);
    // A redeploy that dips and comes back, and a refused call, add nothing: no call matched (no moves to miss).
    expect(appStory([612_000, 0, 612_000], update, 0)).toMatchObject({ found: [], summary: { appCalls: 0 } });
    const refused = appCall("updateApp", t0 + 15_000, 409);
    expect(appStory([12_000, 2_012_000, 2_012_000], refused, 0)).toMatchObject({
      found: [],
      summary: { appCalls: 0 },
    });
  });

  it("holds a call to the limit in effect: lowered, raised, and none while the SpendLimit was deleted", () => {
    const { ledger, violations, found } = world();
    const history = new SpendHistory(limit, ledger);
    history.limits.set(t0 + 1_000, 3_000_000);
    const snapshot = service({ projects: [{ id: "prj_1", name: "ns.p-0" }] });
    history.observeService({ ...snapshot, apps: [] }, t0 + 10_000);
    history.observeService(
      {
        ...snapshot,
        apps: [{ id: "app_1", name: "ns.app-0", projectId: "prj_1", currentHourlyCost: "2.0120" }],
      },
      t0 + 20_000,
    );
    history.addAppCalls([appCall("createApp", t0 + 15_000, 201)]);
    history.check((sim) => sim, violations, 1);
    expect(found()).toEqual([]);
    history.limits.set(t0 + 5_000, 100_000);
    history.check((sim) => sim, violations, 1);
    expect(found()).toEqual(["spend-within-limit"]);
  });

  it("fails when it matched no call though the load made spending moves, and not when it made none", () => {
    const { ledger, violations, found } = world();
    const history = new SpendHistory(limit, ledger);
    history.check((sim) => sim, violations, 0);
    expect(found()).toEqual([]);
    history.check((sim) => sim, violations, 3);
    expect(found()).toEqual(["spend-within-limit"]);
    expect(violations.list()[0]?.detail).toContain("matched no call that added spend");
  });
});

describe("the SpendLimit over a run", () => {
  it("holds a call to the most any limit allowed over the lag before it, and to none while it was deleted", () => {
    const limits = new LimitTimeline(500);
    limits.set(10_000, 200);
    limits.set(20_000, undefined);
    limits.set(30_000, 900);
    expect(limits.at(5_000, 4_000)).toBe(500);
    expect(limits.at(12_000, 4_000)).toBe(500);
    expect(limits.at(15_000, 4_000)).toBe(200);
    expect(limits.at(25_000, 4_000)).toBeUndefined();
    expect(limits.at(32_000, 4_000)).toBeUndefined();
    expect(limits.at(35_000, 4_000)).toBe(900);
    expect(limits.changes).toBe(3);
  });
});

describe("spend within the limit: what is counted", () => {
  const limit = { namespace: "ns", name: "limit", limitMicros: 2 * serverPrice };

  /** `so` holds ord_1 (status as given) from t0; ord_2 (one server, of `so-2`) is placed at t0 + 15 s. */
  function placed(
    s: {
      firstStatus?: Record<string, unknown>;
      ord1?: { state?: string; servers: string[]; charge?: string };
      callAt?: number;
      operation?: string;
      ord1Resource?: PlannedResource;
      wallOf?: (sim: number) => number;
      /** When the two readings of both sides were taken (wall ms). */
      readingsAt?: number[];
    } = {},
  ) {
    const holder = s.ord1Resource ?? first;
    const { ledger, violations, found } = world(first, second);
    const history = new SpendHistory(limit, ledger);
    const status = s.firstStatus ?? { orderId: "ord_1", cost };
    for (const at of s.readingsAt ?? [t0 + 10_000, t0 + 20_000]) {
      history.observeCluster(
        cluster(
          { kind: "ServerOrder", resource: inCluster(holder, status) },
          { kind: "ServerOrder", resource: inCluster(second, { orderId: "ord_2" }) },
        ),
        at,
      );
      const ord1 = s.ord1 ?? { servers: ["running", "running"] };
      const snapshot = placedAt(
        service({
          orders: [
            { id: "ord_1", count: 2, ...ord1 },
            { id: "ord_2", state: "provisioning", count: 1, servers: [] },
          ],
        }),
        { ord_1: t0 + 1_000, ord_2: t0 + 15_000 },
      );
      const charged =
        s.ord1?.charge === undefined
          ? snapshot
          : {
              ...snapshot,
              servers: snapshot.servers.map((server) =>
                server.orderId === "ord_1" ? { ...server, currentHourlyCost: s.ord1?.charge } : server,
              ),
            };
      history.observeService(charged, at);
    }
    const call = provision("req_2", s.callAt ?? t0 + 15_000);
    history.addCalls([
      provision("req_1", t0 + 1_000),
      s.operation === "none" ? { ...call, operation: null } : call,
    ]);
    const summary = history.check(s.wallOf ?? ((sim) => sim), violations);
    return { found: found(), summary, detail: violations.list()[0]?.detail };
  }

  it("counts a server at the charge the service states for it", () => {
    expect(placed({ ord1: { servers: ["running", "running"], charge: "0.0100" } }).found).toEqual([]);
    expect(placed({ ord1: { servers: ["running", "running"], charge: "0.0600" } }).found).toEqual([
      "spend-within-limit",
    ]);
  });

  it("counts the orders a ServerOrder's status lists as growth or replacement orders", () => {
    const replacement = { orderId: "ord_0", cost, replacements: [{ orderId: "ord_1" }] };
    expect(placed({ firstStatus: replacement }).found).toEqual(["spend-within-limit"]);
    const growth = { orderId: "ord_0", cost, growthOrders: [{ id: "ord_1" }] };
    expect(placed({ firstStatus: growth }).found).toEqual(["spend-within-limit"]);
    expect(placed({ firstStatus: { orderId: "ord_0", cost } }).found).toEqual([]);
  });

  it("does not count a ServerOrder's servers before its status states a cost", () => {
    expect(placed({ firstStatus: { orderId: "ord_1" } }).found).toEqual([]);
  });

  it("matches a call to an order made within a second of it, not later", () => {
    expect(placed({ callAt: t0 + 14_000 }).found).toEqual(["spend-within-limit"]);
    const late = placed({ callAt: t0 + 13_999 });
    expect(late.found).toEqual([]);
    expect(late.summary.orders).toBe(1);
  });

  it("takes a call the log does not name as a provisionServers", () => {
    expect(placed({ operation: "none" }).detail).toMatch(/^provisionServers req_2 placed ord_2 /);
  });

  it("stops counting a pending order's room after 30 minutes", () => {
    const pending = { state: "provisioning", servers: [] };
    expect(placed({ ord1: pending }).found).toEqual(["spend-within-limit"]);
    // The second call 31 minutes after the first on the wall clock, between two readings.
    const wallOf = (sim: number) => (sim >= t0 + 15_000 ? sim + 31 * 60_000 : sim);
    const readingsAt = [t0 + 10_000, t0 + 15_000 + 32 * 60_000];
    expect(placed({ ord1: pending, readingsAt }).found).toEqual(["spend-within-limit"]);
    expect(placed({ ord1: pending, wallOf, readingsAt }).found).toEqual([]);
  });

  it("reports what it checked: the orders placed in the namespace and the most counted at one of them", () => {
    expect(placed({ ord1: { servers: ["running", "deprovisioning"] } }).summary).toMatchObject({
      limit,
      orders: 2,
      peakMicros: 2 * serverPrice,
    });
  });
});

describe("the SpendLimit's plan", () => {
  it("has none without namespaces, and leaves copies and other kinds out", () => {
    expect(planSpendLimit({ namespaces: [], resources: [] })).toBeUndefined();
    const copy = {
      ...first,
      name: "copy",
      key: "ns/ServerOrder/copy",
      role: { type: "copy" as const, source: first.key },
    };
    const limit = planSpendLimit({
      namespaces: [{ name: "ns", credentials: "own" }],
      resources: [first, copy],
    });
    expect(limit?.limitMicros).toBe(Math.ceil((2 * serverPrice * 1.15) / 10_000) * 10_000);
  });
});
