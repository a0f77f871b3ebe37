/**
 * The series table of docs/operations/metrics.md, from the metric factories the operator calls
 * (src/operator/operator.ts): each metric's name, labels, type and help text as registered, so a
 * metric added, renamed or removed changes the page. The test scans src/ for metric names too, so
 * a factory left out of `operatorMetricFactories` fails.
 */
import { fileURLToPath } from "node:url";
import { Registry } from "prom-client";
import { z } from "zod";
import { createResourceMetrics } from "../../src/controllers/service/metrics.ts";
import { createCostMetrics } from "../../src/telemetry/cost-metrics.ts";
import { createHostingMetrics } from "../../src/telemetry/hosting-metrics.ts";
import { createDriftMetrics, createMetrics, registerBuildInfo } from "../../src/telemetry/metrics.ts";
import { createSpendMetrics } from "../../src/telemetry/spend-metrics.ts";
import { code, table } from "./markdown.ts";
import type { Section } from "./sections.ts";

export const metricsPagePath = fileURLToPath(new URL("../../docs/operations/metrics.md", import.meta.url));

/** Every group of metrics `berth operator` registers (besides prom-client's process and Node.js ones). */
const operatorMetricFactories: readonly ((registry: Registry) => void)[] = [
  createMetrics,
  createHostingMetrics,
  createResourceMetrics,
  createCostMetrics,
  createSpendMetrics,
  (registry) => createDriftMetrics(registry, () => []),
  (registry) => registerBuildInfo(registry, { version: "", commit: "", node: "" }),
];

/** Where a page says more about a series (relative to docs/operations/). */
const seeAlso: Record<string, string> = {
  berth_resources_already_managed: "[ownership](../concepts/ownership.md)",
  berth_resources_paused:
    "[pauses](../guides/management-policies.md#a-pause-per-namespace-or-for-the-operator)",
  berth_resource_budget_capped_total: "[`BudgetCapped`](../troubleshooting/reasons.md#budgetcapped)",
  berth_drift_lag_seconds: "[sizing](sizing.md)",
  berth_drift_effective_interval_seconds: "[sizing](sizing.md)",
  berth_resource_hourly_cost: "[cost](../concepts/cost.md)",
  berth_credential_balance: "[cost](../concepts/cost.md)",
  berth_credential_hourly_spend: "[cost](../concepts/cost.md)",
  berth_credential_runway_hours: "[cost](../concepts/cost.md)",
  berth_resources_insufficient_balance: "[cost](../concepts/cost.md)",
  berth_namespace_hourly_spend: "[spend limits](../guides/spend-limits.md)",
  berth_spend_limit_hourly: "[spend limits](../guides/spend-limits.md)",
};

const metricSchema = z.object({
  name: z.string(),
  help: z.string(),
  type: z.enum(["counter", "gauge", "histogram", "summary"]),
  labelNames: z.array(z.string()).default([]),
});
export type MetricDescription = z.output<typeof metricSchema>;

/** The metrics the operator registers, in the order it registers them. */
export function operatorMetrics(): MetricDescription[] {
  const registry = new Registry();
  for (const register of operatorMetricFactories) register(registry);
  const metrics = registry.getMetricsAsArray().map((metric) => metricSchema.parse(metric));
  for (const name of Object.keys(seeAlso)) {
    if (!metrics.some((m) => m.name === name))
      throw new Error(`seeAlso names ${name}, which is not registered`);
  }
  return metrics;
}

function seriesTable(metrics: readonly MetricDescription[]): string {
  return table(
    ["series", "type", "what"],
    metrics.map((m) => [
      code(m.labelNames.length === 0 ? m.name : `${m.name}{${m.labelNames.join(",")}}`),
      m.type,
      seeAlso[m.name] === undefined ? m.help : `${m.help.replace(/\.$/, "")} (${seeAlso[m.name]})`,
    ]),
  );
}

function renderSeries(): string {
  const metrics = operatorMetrics();
  const own = metrics.filter((m) => m.name.startsWith("berth_"));
  const shared = metrics.filter((m) => !m.name.startsWith("berth_"));
  return [
    "controller-runtime's and client-go's names, so existing dashboards work:",
    "",
    seriesTable(shared),
    "",
    "berth's own:",
    "",
    seriesTable(own),
    "",
    "and prom-client's default process and Node.js series (`process_*`, `nodejs_*`).",
  ].join("\n");
}

export const metricsSections: readonly Section[] = [{ id: "metrics-series", render: renderSeries }];
