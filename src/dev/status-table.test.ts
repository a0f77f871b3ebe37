import { describe, expect, it } from "vitest";
import { renderRunway, renderTable, toRow } from "./status-table.ts";

const condition = (type: string, status: string, reason: string, message = "") => ({
  type,
  status,
  reason,
  message,
});

describe("toRow", () => {
  it.each([
    {
      name: "ready app shows its url and id",
      status: {
        appId: "a".repeat(24),
        url: "https://x.example",
        conditions: [condition("Ready", "True", "Succeeded")],
      },
      want: { ready: "True", reason: "Succeeded", externalId: "a".repeat(24), endpoint: "https://x.example" },
    },
    {
      name: "stalled wins over ready",
      status: {
        conditions: [
          condition("Ready", "False", "BuildFailed"),
          condition("Stalled", "True", "BuildFailed", "build failed at step test"),
        ],
      },
      want: { ready: "False", reason: "BuildFailed", message: "build failed at step test" },
    },
    {
      name: "reconciling shows progress",
      status: {
        orderId: "ord_1",
        conditions: [
          condition("Ready", "Unknown", "Progressing"),
          condition("Reconciling", "True", "Building"),
        ],
      },
      want: { ready: "Unknown", reason: "Building", externalId: "ord_1" },
    },
    {
      name: "no status yet",
      status: undefined,
      want: { ready: "-", reason: "-", externalId: "-", endpoint: "-" },
    },
  ])("$name", ({ status, want }) => {
    expect(toRow("App", { metadata: { name: "web" }, ...(status ? { status } : {}) })).toMatchObject(want);
  });
});

describe("renderTable", () => {
  it("aligns columns under their headers", () => {
    const rows = [
      toRow("Project", { metadata: { name: "demo" }, status: { projectId: "p1" } }),
      toRow("App", { metadata: { name: "web-frontend" }, status: { appId: "a1" } }),
    ];
    const [header, first, second] = renderTable(rows).split("\n");
    expect(header).toMatch(/^KIND\s+NAME\s+READY/);
    expect(first?.indexOf("demo")).toBe(header?.indexOf("NAME"));
    expect(second?.indexOf("a1")).toBe(header?.indexOf("EXTERNAL-ID"));
  });

  it("shows what each resource costs per hour, and - where the service did not say", () => {
    const rows = [
      toRow("App", {
        metadata: { name: "web" },
        status: { cost: { hourly: { amount: "0.0120", currency: "USD" } } },
      }),
      toRow("App", { metadata: { name: "new" }, status: {} }),
    ];
    const [header, web, unknown] = renderTable(rows).split("\n");
    expect(web?.slice(header?.indexOf("COST/H")).startsWith("0.0120 USD")).toBe(true);
    expect(unknown?.slice(header?.indexOf("COST/H")).startsWith("-")).toBe(true);
  });

  it("shows the runway of each credential with a balance, never for one without", () => {
    expect(
      renderRunway([
        {
          credential: "key-0123456789ab",
          balance: { amount: 1, currency: "USD" },
          spend: { amount: 0.012, currency: "USD" },
          runwayHours: 83.33,
        },
        { credential: "key-ffffffffffff", spend: { amount: 0.5, currency: "USD" } },
      ]),
    ).toBe("RUNWAY key-0123456789ab: 83.3 h (balance 1 USD, spend 0.012 USD/h)\n");
  });

  it("says when there is nothing to show", () => {
    expect(renderTable([])).toContain("(no resources yet)");
  });
});
