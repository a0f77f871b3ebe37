import { describe, expect, it } from "vitest";
import { parseTarget } from "./fetch.ts";
import { renderTree } from "./render.ts";
import { buildTrace, type TracedObject } from "./tree.ts";

const now = Date.parse("2026-01-01T01:00:00Z");
const ready = (reason = "Succeeded", status = "True") => ({
  conditions: [{ type: "Ready", status, reason, message: "m" }],
});

function object(
  kind: string,
  name: string,
  spec: Record<string, unknown>,
  status?: Record<string, unknown>,
): TracedObject {
  return {
    kind,
    metadata: { name, namespace: "team", uid: `uid-${name}`, creationTimestamp: "2026-01-01T00:58:00Z" },
    spec,
    ...(status === undefined ? {} : { status }),
  };
}

describe("berth trace", () => {
  const project = object("Project", "demo", {}, { ...ready(), projectId: "p_1" });
  const apps = [
    object("App", "web", { projectRef: { name: "demo" } }, { ...ready(), appId: "a_1" }),
    object(
      "App",
      "api",
      { projectId: "p_1" },
      {
        ...ready("Building", "False"),
        intents: [{ operation: "createApp", key: "k-123", attempt: 2 }],
      },
    ),
    object("App", "other", { projectRef: { name: "elsewhere" } }, ready()),
  ];
  const events = [
    {
      regarding: "uid-web",
      type: "Normal",
      reason: "Created",
      note: "created app a_1",
      at: "2026-01-01T00:58:30Z",
    },
    {
      regarding: "uid-web",
      type: "Normal",
      reason: "Ready",
      note: "app a_1 is running",
      at: "2026-01-01T00:59:00Z",
    },
  ];

  it("draws a Project and the Apps that use it (by projectRef or projectId), one line each", () => {
    const text = renderTree(buildTrace(project, { apps, serverOrders: [], events, claimants: [] }), now);
    const lines = text.trimEnd().split("\n");
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatch(/^NAME\s+READY\s+REASON\s+AGE\s+EXTERNAL-ID\s+CLAIM\s+INTENT\s+LAST EVENT$/);
    expect(lines[1]).toMatch(/^Project\/demo\s+True\s+Succeeded\s+2m\s+p_1\s+-\s+-\s+-$/);
    expect(lines[2]).toMatch(
      /^├─ App\/web\s+True\s+Succeeded\s+2m\s+a_1\s+-\s+-\s+60s ago Ready: app a_1 is running$/,
    );
    expect(lines[3]).toMatch(/^└─ App\/api\s+False\s+Building\s+2m\s+-\s+-\s+createApp \(attempt 2\)\s+-$/);
  });

  it("draws a Grid, its ServerOrders and their servers", () => {
    const grid = object("Grid", "pool", {}, { ...ready(), gridId: "g_1" });
    const order = object(
      "ServerOrder",
      "batch",
      { gridRefs: [{ name: "pool" }] },
      {
        ...ready(),
        orderId: "o_1",
        servers: [
          { address: "0xa", state: "running", power: "On" },
          { address: "0xb", state: "provisioning" },
        ],
      },
    );
    const tree = buildTrace(grid, { apps: [], serverOrders: [order], events: [], claimants: [] });
    expect(tree.children.map((c) => c.name)).toEqual(["batch"]);
    expect(tree.children[0]?.children.map((s) => [s.name, s.ready, s.reason])).toEqual([
      ["0xa", "True", "running, power On"],
      ["0xb", "False", "provisioning, power On"],
    ]);
    const lines = renderTree(tree, now).trimEnd().split("\n");
    expect(lines.slice(1).map((l) => l.replace(/(\S)\s{2,}.*$/, "$1"))).toEqual([
      "Grid/pool",
      "└─ ServerOrder/batch",
      "   ├─ Server/0xa",
      "   └─ Server/0xb",
    ]);
  });

  it("shows a resource berth has not reconciled yet as such", () => {
    const fresh = buildTrace(object("App", "new", {}), {
      apps: [],
      serverOrders: [],
      events: [],
      claimants: [],
    });
    expect([fresh.ready, fresh.reason, fresh.intent]).toEqual(["Unknown", "NotReconciled", undefined]);
  });

  it("shows each resource's claim, and every resource that names the root's object", () => {
    const claimed = (name: string, namespace: string, claimant: string, status: Record<string, unknown>) => ({
      ...object("App", name, { projectId: "p_1" }, status),
      metadata: {
        name,
        namespace,
        uid: `uid-${namespace}-${name}`,
        labels: { "berth.dev/claim": "c0ffee" },
        annotations: { "berth.dev/claimant": claimant, "berth.dev/external-id": "a_1" },
      },
    });
    const holder = claimed("web", "team", "team/web", { ...ready(), appId: "a_1" });
    const copy = claimed("web-copy", "team", "team/web", {
      conditions: [{ type: "Stalled", status: "True", reason: "AlreadyManaged", message: "m" }],
    });
    const pending = claimed("web", "other", "team/web", {});
    const tree = buildTrace(holder, {
      apps: [],
      serverOrders: [],
      events: [],
      claimants: [holder, copy, pending],
    });
    expect(tree.claim).toBe("held");
    expect(tree.claimants?.map((c) => `${c.namespace}/${c.name} ${c.claim}`)).toEqual([
      "team/web held",
      "team/web-copy refused",
      "other/web copied from team/web",
    ]);
    const text = renderTree(tree, now);
    expect(text).toContain("3 resources name a_1:\n  App team/web: held\n  App team/web-copy: refused\n");
    const alone = buildTrace(holder, { apps: [], serverOrders: [], events: [], claimants: [holder] });
    expect(alone.claimants).toBeUndefined();
  });

  it("draws a SpendLimit, its accounts, and the resources it refused or holds room for", () => {
    const money = (amount: string) => ({ amount, currency: "USD" });
    const limit = object(
      "SpendLimit",
      "team",
      { maxHourlyCost: "1.00" },
      {
        ...ready("Succeeded"),
        limit: money("1.00"),
        used: money("0.60"),
        committed: money("0.20"),
        refused: [{ resource: "ServerOrder/big", adds: "0.80", since: "2026-01-01T00:55:00Z" }],
        refusedCount: 1,
        commitments: [
          {
            resource: "App/web",
            uid: "uid-web",
            hourly: "0.20",
            adds: "0.20",
            since: "2026-01-01T00:59:00Z",
          },
          {
            resource: "App/gone",
            uid: "uid-gone",
            hourly: "0.10",
            adds: "0.10",
            since: "2026-01-01T00:59:00Z",
          },
        ],
      },
    );
    const stalled = {
      conditions: [
        { type: "Ready", status: "False", reason: "SpendLimitExceeded", message: "m" },
        { type: "Stalled", status: "True", reason: "SpendLimitExceeded", message: "m" },
      ],
    };
    const inputs = {
      apps: [object("App", "web", {}, ready("Provisioning", "False")), object("App", "idle", {}, ready())],
      serverOrders: [object("ServerOrder", "big", {}, stalled), object("ServerOrder", "small", {}, ready())],
      events: [],
      claimants: [],
    };
    const tree = buildTrace(limit, inputs);
    expect(tree.children.map((c) => [c.kind, c.name, c.ready, c.reason])).toEqual([
      ["ServerOrder", "big", "False", "SpendLimitExceeded"],
      ["App", "web", "False", "Provisioning"],
    ]);
    const lines = renderTree(tree, now).trimEnd().split("\n");
    expect(lines.slice(1, 4).map((l) => l.replace(/(\S)\s{2,}(\S+)\s{2,}(\S+).*$/, "$1 $2 $3"))).toEqual([
      "SpendLimit/team True Succeeded",
      "├─ ServerOrder/big False SpendLimitExceeded",
      "└─ App/web False Provisioning",
    ]);
    expect(lines.slice(4)).toEqual([
      "",
      "limit 1.00 USD/h, used 0.60, committed 0.20; 1 refused, 2 committed",
      "  refused ServerOrder/big: adds 0.80 USD/h, waiting 5m",
      "  committed App/web: 0.20 USD/h (adds 0.20), since 60s",
      "  committed App/gone: 0.10 USD/h (adds 0.10), since 60s",
    ]);
  });

  it("shows a SpendLimit that has no status yet at its spec's limit", () => {
    const tree = buildTrace(object("SpendLimit", "new", { maxHourlyCost: "2.50" }), {
      apps: [],
      serverOrders: [],
      events: [],
      claimants: [],
    });
    expect([tree.reason, tree.children]).toEqual(["NotReconciled", []]);
    expect(renderTree(tree, now)).toContain("\nlimit 2.50/h, used -, committed -; 0 refused, 0 committed\n");
  });

  it("reads spendlimit/NAME, spendlimits/NAME and bspend/NAME as a SpendLimit", () => {
    for (const target of ["spendlimit/team", "spendlimits/team", "bspend/team", "SpendLimit/team"]) {
      expect(parseTarget(target)).toMatchObject({ names: { kind: "SpendLimit" }, name: "team" });
    }
    expect(() => parseTarget("quota/team")).toThrow(/expected <kind>\/<name>/);
  });
});
