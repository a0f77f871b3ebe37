import type { Registry } from "prom-client";
import { type RunwayFigures, renderRunway } from "./status-table.ts";

type Labels = Record<string, string | number | undefined>;

/** The runway lines of `berth dev`, from the in-process operator's cost metrics. */
export async function runwayLines(registry: Registry): Promise<string> {
  const metrics = await registry.getMetricsAsJSON();
  const values = (name: string) => metrics.find((m) => m.name === name)?.values ?? [];
  const byCredential = new Map<string, RunwayFigures>();
  const figuresOf = (labels: Labels): RunwayFigures => {
    const credential = String(labels.credential ?? "");
    const known = byCredential.get(credential) ?? { credential };
    byCredential.set(credential, known);
    return known;
  };
  for (const { labels, value } of values("berth_credential_balance"))
    figuresOf(labels).balance = { amount: value, currency: String(labels.currency) };
  for (const { labels, value } of values("berth_credential_hourly_spend"))
    figuresOf(labels).spend = { amount: value, currency: String(labels.currency) };
  for (const { labels, value } of values("berth_credential_runway_hours"))
    figuresOf(labels).runwayHours = value;
  return renderRunway([...byCredential.values()]);
}
