import { describe, expect, it } from "vitest";
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
});
