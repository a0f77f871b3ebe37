import { Gauge, type Registry } from "prom-client";

/** One SpendLimit as its status and spec say, read at scrape time. */
export interface SpendFigures {
  namespace: string;
  name: string;
  /** spec.maxHourlyCost. */
  limit: number;
  /** What counts against it: status.used + status.committed; absent before the first status. */
  spend?: number | undefined;
}

export interface SpendMetrics {
  track(source: () => Iterable<SpendFigures>): void;
}

/**
 * berth_namespace_hourly_spend{namespace} (used + committed, as the SpendLimits there counted it) and
 * berth_spend_limit_hourly{namespace,spendlimit}: computed at each scrape from the SpendLimits there are.
 */
export function createSpendMetrics(registry: Registry): SpendMetrics {
  const sources: (() => Iterable<SpendFigures>)[] = [];
  const figures = () => sources.flatMap((source) => [...source()]);
  new Gauge({
    name: "berth_namespace_hourly_spend",
    help: "What a namespace with a SpendLimit spends per hour: its resources' stated costs plus calls not yet costed.",
    labelNames: ["namespace"],
    registers: [registry],
    collect() {
      this.reset();
      const spend = new Map<string, number>();
      for (const f of figures())
        if (f.spend !== undefined) spend.set(f.namespace, Math.max(spend.get(f.namespace) ?? 0, f.spend));
      for (const [namespace, value] of spend) this.set({ namespace }, value);
    },
  });
  new Gauge({
    name: "berth_spend_limit_hourly",
    help: "A SpendLimit's spec.maxHourlyCost.",
    labelNames: ["namespace", "spendlimit"],
    registers: [registry],
    collect() {
      this.reset();
      for (const f of figures()) this.set({ namespace: f.namespace, spendlimit: f.name }, f.limit);
    },
  });
  return { track: (source) => sources.push(source) };
}
