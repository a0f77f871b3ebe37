/**
 * The alerts table of docs/operations/alerts-and-dashboard.md, from the rules berth ships
 * (deploy/components/prometheus/prometheus-rule.yaml, which the chart copies): each alert's
 * expression, how long it must hold, its severity and summary, linked to its section of
 * docs/operations/alert-runbooks.md. Generation fails when an alert has no section there, or a
 * section names an alert the rules no longer have.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { z } from "zod";
import { anchor, code, table } from "./markdown.ts";
import type { Section } from "./sections.ts";

export const alertsPagePath = fileURLToPath(
  new URL("../../docs/operations/alerts-and-dashboard.md", import.meta.url),
);
export const runbooksPagePath = fileURLToPath(
  new URL("../../docs/operations/alert-runbooks.md", import.meta.url),
);
const rulesPath = fileURLToPath(
  new URL("../../deploy/components/prometheus/prometheus-rule.yaml", import.meta.url),
);

const ruleSchema = z.object({
  alert: z.string(),
  expr: z.string(),
  for: z.string().optional(),
  labels: z.object({ severity: z.string() }),
  annotations: z.object({ summary: z.string(), description: z.string() }),
});
export type AlertRule = z.output<typeof ruleSchema>;

const ruleFileSchema = z.object({
  spec: z.object({ groups: z.array(z.object({ rules: z.array(ruleSchema) })) }),
});

export function alertRules(text = readFileSync(rulesPath, "utf8")): AlertRule[] {
  return ruleFileSchema.parse(parse(text)).spec.groups.flatMap((group) => group.rules);
}

/** The alerts named by the runbook page's second-level headings. */
export function runbookSections(page = readFileSync(runbooksPagePath, "utf8")): string[] {
  return [...page.matchAll(/^## (\S+)$/gm)].map((m) => m[1] ?? "");
}

/** Throws, naming each, when the rules and the runbook page disagree. */
export function checkRunbooks(rules: readonly AlertRule[], sections: readonly string[]): void {
  const names = rules.map((r) => r.alert);
  const problems = [
    ...names
      .filter((n) => !sections.includes(n))
      .map((n) => `alert ${n} has no section in alert-runbooks.md`),
    ...sections
      .filter((s) => !names.includes(s))
      .map((s) => `alert-runbooks.md has a section for ${s}, which no rule defines`),
  ];
  if (problems.length > 0) throw new Error(problems.join("\n"));
}

export function renderAlertsTable(rules = alertRules(), sections = runbookSections()): string {
  checkRunbooks(rules, sections);
  return table(
    ["alert", "severity", "fires when", "for", "summary"],
    rules.map((rule) => [
      `[\`${rule.alert}\`](alert-runbooks.md#${anchor(rule.alert)})`,
      rule.labels.severity,
      code(rule.expr.replace(/\s+/g, " ").trim()),
      rule.for ?? "",
      rule.annotations.summary,
    ]),
  );
}

export const alertsSections: readonly Section[] = [{ id: "alerts", render: () => renderAlertsTable() }];
