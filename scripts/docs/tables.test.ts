import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { alertRules, checkRunbooks, renderAlertsTable, runbookSections } from "./alerts.ts";
import { renderSectionPage, sectionPages } from "./generated-sections.ts";
import { operatorMetrics } from "./metrics.ts";
import { rulesOf } from "./rbac.ts";
import { literalReasons } from "./reason-scan.ts";
import { withSections } from "./sections.ts";
import { definedReasons, readReasonsSource, renderReasonsPage } from "./troubleshooting.ts";

const root = fileURLToPath(new URL("../../", import.meta.url));
const fix = "run `npm run generate` and commit the result";

describe("the generated tables in hand-written pages", () => {
  it.each(
    sectionPages.map(({ path: page, sections }) => [path.relative(root, page), page, sections] as const),
  )("%s matches what the code and the manifests say", (name, page, sections) => {
    expect(readFileSync(page, "utf8"), `${name} is out of date: ${fix}`).toBe(
      renderSectionPage(page, sections),
    );
  });

  it("fails generation for a page that lost a section's markers", () => {
    expect(() => withSections("# A page\n", [{ id: "rbac-cluster", render: () => "x" }])).toThrow(
      /no generated section rbac-cluster/,
    );
  });

  it("replaces only the section, however stale its text", () => {
    const page = withSections(
      "before\n<!-- generated: t (`npm run generate` writes this part; do not edit) -->\nstale\n<!-- end generated: t -->\nafter\n",
      [{ id: "t", render: () => "| fresh |" }],
    );
    expect(page).toBe(
      "before\n<!-- generated: t (`npm run generate` writes this part; do not edit) -->\n\n| fresh |\n\n<!-- end generated: t -->\nafter\n",
    );
  });
});

describe("the RBAC table", () => {
  const install = readFileSync(path.join(root, "docs/operations/install.md"), "utf8");

  it("lists SpendLimits, the outputs' ConfigMaps and the Namespaces the operator watches", () => {
    expect(install).toMatch(
      /\| ClusterRole `berth-operator` \| [^|]*`spendlimits`[^|]* \(berth\.dev\) \| get list watch patch update \|/,
    );
    expect(install).toMatch(
      /\| ClusterRole `berth-operator` \| `configmaps` \(core\) \| get create update delete \|/,
    );
    expect(install).toMatch(
      /\| ClusterRole `berth-operator-cluster` \| `namespaces` \(core\) \| get list watch \|/,
    );
    expect(install).toContain("`spendlimits.berth.dev`");
  });

  it("gives every rule the reason written above it, the first one's too", () => {
    const manifest = [
      "kind: Role",
      "metadata: { name: r, namespace: ns }",
      "rules:",
      "  # the first reason",
      "  - { apiGroups: [''], resources: [secrets], verbs: [get] }",
      "  # the second reason",
      "  - { apiGroups: [x.dev], resources: [things], verbs: [list], resourceNames: [one] }",
    ].join("\n");
    expect(rulesOf(manifest)).toEqual([
      { role: "Role `r` in `ns`", what: "`secrets` (core)", verbs: "get", only: "", why: "the first reason" },
      {
        role: "Role `r` in `ns`",
        what: "`things` (x.dev)",
        verbs: "list",
        only: "`one`",
        why: "the second reason",
      },
    ]);
  });
});

describe("the metrics table", () => {
  const registered = operatorMetrics().map((m) => m.name);

  it("has every metric the code defines in src/", () => {
    const defined = sourceFiles(path.join(root, "src")).flatMap((file) =>
      [
        ...readFileSync(file, "utf8").matchAll(
          /new (?:Counter|Gauge|Histogram|Summary)\(\{\s*name:\s*"([^"]+)"/g,
        ),
      ].map((m) => m[1] ?? ""),
    );
    expect(defined.length).toBeGreaterThan(30);
    expect(defined.filter((name) => !registered.includes(name))).toEqual([]);
  });

  it("lists the pause, refusal and spend series with their labels", () => {
    const page = readFileSync(path.join(root, "docs/operations/metrics.md"), "utf8");
    for (const series of [
      "berth_resources_paused{kind}",
      "berth_resources_already_managed{kind}",
      "berth_namespace_hourly_spend{namespace}",
      "berth_spend_limit_hourly{namespace,spendlimit}",
    ])
      expect(page).toContain(`| \`${series}\` | gauge |`);
  });
});

describe("the alerts table", () => {
  it("has every rule, BerthNamespaceSpendNearLimit among them, linked to its runbook", () => {
    const table = renderAlertsTable();
    expect(alertRules().length).toBeGreaterThan(5);
    for (const rule of alertRules())
      expect(table).toContain(`[\`${rule.alert}\`](alert-runbooks.md#${rule.alert.toLowerCase()})`);
    expect(table).toContain("BerthNamespaceSpendNearLimit");
  });

  it("fails generation for an alert without a runbook section, or a section without an alert", () => {
    const rules = alertRules();
    const sections = runbookSections();
    expect(() =>
      checkRunbooks(
        rules,
        sections.filter((s) => s !== "BerthNoLeader"),
      ),
    ).toThrow(/alert BerthNoLeader has no section/);
    expect(() => checkRunbooks(rules, [...sections, "BerthGone"])).toThrow(
      /section for BerthGone, which no rule/,
    );
  });
});

describe("reasons written as literals", { timeout: 30_000 }, () => {
  it("are found in the code: the SpendLimit's WithinLimit, a replacement's Succeeded, OrderFailed", () => {
    const found = literalReasons();
    expect(found.map((f) => f.reason)).toEqual(
      expect.arrayContaining(["WithinLimit", "Succeeded", "OrderFailed"]),
    );
    expect(found.find((f) => f.reason === "WithinLimit")?.where).toMatch(
      /^src\/controllers\/spend-limit\/status\.ts:\d+$/,
    );
    expect(definedReasons().reasons).toContain("WithinLimit");
  });

  it("fail generation when one has no entry in reasons.yaml", () => {
    const source = readReasonsSource();
    const { WithinLimit: _, ...others } = source.reasons;
    expect(() => renderReasonsPage(definedReasons(), { ...source, reasons: others })).toThrow(
      /condition reason WithinLimit has no entry/,
    );
  });

  it("count a condition's reason, whichever way it is written, and not an event's", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "reasons-"));
    mkdirSync(path.join(dir, "controllers"));
    writeFileSync(
      path.join(dir, "controllers", "kind.ts"),
      [
        'import { condition } from "./helpers.ts";',
        'const a = { type: "Ready", status: "True", reason: "InObject", message: "m" };',
        'const b = { type: "Ready", status: "True", reason: x ? "InTernary" : "AlsoTernary", message: "m" };',
        'const c = condition("Ready", "True", "AsArgument", "m");',
        'const reason = y ?? "InVariable";',
        'function reasonOfThing(code: string) { return code === "" ? "Returned" : code; }',
        'recorder.record(object, "Normal", "EventReason", "a note");',
        'const d = { outcome: "acted", note: "n", reason: "SettlementEvent" };',
        'const e = { rule: "self.x", message: "m", reason: "FieldValueInvalid" };',
        'const f = { type: "Ready", status: "True", reason: "lowercase", message: "m" };',
      ].join("\n"),
    );
    writeFileSync(
      path.join(dir, "controllers", "helpers.ts"),
      [
        "export function condition(type: string, status: string, reason: string, message: string) {}",
        "export class Recorder { record(regarding: object, type: string, reason: string, note: string) {} }",
      ].join("\n"),
    );
    expect(
      literalReasons(dir, ["controllers"])
        .map((f) => f.reason)
        .sort(),
    ).toEqual(["AlsoTernary", "AsArgument", "InObject", "InTernary", "InVariable", "Returned"]);
  });
});

function sourceFiles(directory: string): string[] {
  return readdirSyncRecursive(directory).filter((file) => file.endsWith(".ts") && !file.endsWith(".test.ts"));
}

function readdirSyncRecursive(directory: string): string[] {
  return (readdirSync(directory, { recursive: true }) as string[]).map((file) => path.join(directory, file));
}
