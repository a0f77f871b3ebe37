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
    const text = renderTree(buildTrace(project, { apps, serverOrders: [], events }), now);
    const lines = text.trimEnd().split("\n");
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatch(/^NAME\s+READY\s+REASON\s+AGE\s+EXTERNAL-ID\s+INTENT\s+LAST EVENT$/);
    expect(lines[1]).toMatch(/^Project\/demo\s+True\s+Succeeded\s+2m\s+p_1\s+-\s+-$/);
    expect(lines[2]).toMatch(
      /^├─ App\/web\s+True\s+Succeeded\s+2m\s+a_1\s+-\s+60s ago Ready: app a_1 is running$/,
    );
    expect(lines[3]).toMatch(/^└─ App\/api\s+False\s+Building\s+2m\s+-\s+createApp \(attempt 2\)\s+-$/);
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
    const tree = buildTrace(grid, { apps: [], serverOrders: [order], events: [] });
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
    const fresh = buildTrace(object("App", "new", {}), { apps: [], serverOrders: [], events: [] });
    expect([fresh.ready, fresh.reason, fresh.intent]).toEqual(["Unknown", "NotReconciled", undefined]);
  });
});
