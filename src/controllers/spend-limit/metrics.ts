import { spendLimitSchema } from "../../api/spend-limit.ts";
import type { ObjectCache } from "../../runtime/index.ts";
import type { SpendFigures, SpendMetrics } from "../../telemetry/spend-metrics.ts";

/** The spend metrics read the SpendLimits in the cache at each scrape. */
export function trackSpendLimits(metrics: SpendMetrics, limits: ObjectCache): void {
  metrics.track(() =>
    limits.list().flatMap((object): SpendFigures[] => {
      const parsed = spendLimitSchema.safeParse(object);
      if (!parsed.success) return [];
      const { metadata, spec, status } = parsed.data;
      const used = status?.used === undefined ? undefined : Number(status.used.amount);
      const committed = Number(status?.committed?.amount ?? "0");
      return [
        {
          namespace: metadata.namespace ?? "default",
          name: metadata.name,
          limit: Number(spec.maxHourlyCost),
          spend: used === undefined ? undefined : used + committed,
        },
      ];
    }),
  );
}
