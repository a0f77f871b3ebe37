import { readFile } from "node:fs/promises";
import { collectDefaultMetrics, Histogram, Registry } from "prom-client";
import { beforeAll, describe, expect, it } from "vitest";
import { createResourceMetrics } from "../../src/controllers/shared/metrics.ts";
import { createHostingMetrics } from "../../src/telemetry/hosting-metrics.ts";
import { createMetrics } from "../../src/telemetry/metrics.ts";
import { deployPath, findObject, render } from "./helpers.ts";

/** What berth's /metrics serves (as `berth operator` builds it), plus `up`, which Prometheus adds per target. */
function exportedNames(): Set<string> {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  createMetrics(registry);
  createHostingMetrics(registry);
  createResourceMetrics(registry);
  const names = new Set(["up"]);
  for (const metric of registry.getMetricsAsArray()) {
    names.add(metric.name);
    if (metric instanceof Histogram) {
      for (const suffix of ["_bucket", "_sum", "_count"]) names.add(metric.name + suffix);
    }
  }
  return names;
}

const keywords = new Set(["and", "or", "unless", "bool", "offset", "by", "without", "on", "ignoring"]);

/**
 * The metric names a PromQL expression selects: what is left after removing strings, label
 * matchers, ranges, grouping clauses, function names, keywords and numbers.
 */
function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, " ")
    .replace(/\[[^\]]*\]/g, " ")
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, " ");
  const names = [...bare.matchAll(/[A-Za-z_:][A-Za-z0-9_:]*(?!\s*\()(?![A-Za-z0-9_:])/g)].map((m) => m[0]);
  return names.filter((name) => !keywords.has(name) && !/^\d/.test(name));
}

interface Rule {
  alert: string;
  expr: string;
  for: string;
  labels: { severity: string };
  annotations: { summary: string; description: string };
}

describe("alerts and dashboard", () => {
  const known = exportedNames();
  let rules: Rule[] = [];
  let panelExprs: { title: string; expr: string }[] = [];

  beforeAll(async () => {
    const { objects } = await render("overlays/monitoring");
    const spec = findObject(objects, "PrometheusRule").spec as { groups: { rules: Rule[] }[] };
    rules = spec.groups.flatMap((group) => group.rules);
    const dashboard = JSON.parse(
      await readFile(deployPath("components", "grafana", "dashboard.json"), "utf8"),
    );
    panelExprs = (dashboard.panels as { title: string; targets?: { expr: string }[] }[]).flatMap((panel) =>
      (panel.targets ?? []).map((target) => ({ title: panel.title, expr: target.expr })),
    );
  });

  it("finds metric names in PromQL", () => {
    expect(
      metricNames(
        'sum by (controller) (rate(a_total{job="x", c=~"y|z"}[5m])) / on(pod) b > 0.1 and absent(up)',
      ),
    ).toEqual(["a_total", "b", "up"]);
  });

  it("alert on the failures the design names, each with a severity and a message", () => {
    const selected = (alert: string) => metricNames(rules.find((rule) => rule.alert === alert)?.expr ?? "");
    expect(selected("BerthReconcileErrors")).toContain("controller_runtime_reconcile_errors_total");
    expect(selected("BerthHostingRateLimited")).toEqual(["berth_hosting_rate_limited_total"]);
    expect(selected("BerthResourcesStalled")).toEqual(["berth_resources"]);
    expect(rules.find((rule) => rule.alert === "BerthResourcesStalled")?.expr).toContain(
      'condition="Stalled"',
    );
    expect(selected("BerthNoLeader")).toEqual(["leader_election_master_status"]);
    expect(selected("BerthWatchRestarts")).toEqual(["berth_watch_restarts_total"]);
    for (const rule of rules) {
      expect(["warning", "critical"], rule.alert).toContain(rule.labels.severity);
      expect(rule.annotations.summary, rule.alert).not.toBe("");
      expect(rule.annotations.description, rule.alert).not.toBe("");
    }
  });

  it("alerts select only metrics berth exports, scoped to job berth", () => {
    for (const rule of rules) {
      for (const name of metricNames(rule.expr)) expect(known, `${rule.alert}: ${name}`).toContain(name);
      expect(rule.expr, rule.alert).toContain('job="berth"');
    }
  });

  it("dashboard panels query only metrics berth exports", () => {
    expect(panelExprs.length).toBeGreaterThan(10);
    for (const { title, expr } of panelExprs) {
      const names = metricNames(expr);
      expect(names.length, `${title}: ${expr}`).toBeGreaterThan(0);
      for (const name of names) expect(known, `${title}: ${name}`).toContain(name);
    }
  });
});
