import { Counter, Gauge, Histogram, type Registry } from "prom-client";
import { type Condition, ConditionType, getCondition } from "../../api/conditions.ts";
import type { KubeObject } from "../../runtime/index.ts";
import { Reason } from "./reasons.ts";

/** The summary condition a resource is in, for the resources gauge. */
export type ResourceCondition = "Ready" | "Reconciling" | "Stalled" | "Suspended" | "Unknown";

export interface ResourceMetrics {
  /** Counts resources of `kind` by condition at every scrape, from `list` (an informer's objects). */
  track(kind: string, list: () => readonly KubeObject[]): void;
  /** A resource became Ready for the first time (as far as this process saw). */
  observeFirstReady(kind: string, seconds: number): void;
  /** A reconcile was put off: its resource spent its share of the key's budget without progress. */
  budgetCapped(kind: string): void;
}

const firstReadyBuckets = [1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1800, 3600];

/**
 * berth_resources{kind,condition}, berth_resources_already_managed{kind}, berth_resources_paused{kind} and
 * berth_time_to_first_ready_seconds{kind}; no per-object labels.
 */
export function createResourceMetrics(registry: Registry): ResourceMetrics {
  const tracked = new Map<string, () => readonly KubeObject[]>();
  const resources: Gauge<"kind" | "condition"> = new Gauge({
    name: "berth_resources",
    help: "berth resources by kind and summary condition (Ready, Reconciling, Stalled, Suspended, Unknown)",
    labelNames: ["kind", "condition"],
    registers: [registry],
    collect() {
      resources.reset();
      for (const [kind, list] of tracked) {
        const counts = new Map<ResourceCondition, number>();
        for (const object of list()) {
          const condition = summaryCondition(object);
          counts.set(condition, (counts.get(condition) ?? 0) + 1);
        }
        for (const [condition, count] of counts) resources.set({ kind, condition }, count);
      }
    },
  });
  const refused: Gauge<"kind"> = new Gauge({
    name: "berth_resources_already_managed",
    help: "berth resources refused their external object because another resource manages it (Stalled AlreadyManaged)",
    labelNames: ["kind"],
    registers: [registry],
    collect() {
      refused.reset();
      for (const [kind, list] of tracked) {
        const count = list().filter((object) => stalledReason(object) === Reason.AlreadyManaged).length;
        refused.set({ kind }, count);
      }
    },
  });
  const paused: Gauge<"kind"> = new Gauge({
    name: "berth_resources_paused",
    help: "berth resources whose changes a pause holds (Ready=False Paused: the Namespace's berth.dev/paused annotation or the operator's --paused flag; NamespaceAnnotationInvalid: a Namespace annotation berth can't read holds them as a pause)",
    labelNames: ["kind"],
    registers: [registry],
    collect() {
      paused.reset();
      for (const [kind, list] of tracked) {
        const held = new Set<string>([Reason.Paused, Reason.NamespaceAnnotationInvalid]);
        const count = list().filter((object) => held.has(readyReason(object) ?? "")).length;
        paused.set({ kind }, count);
      }
    },
  });
  const firstReady = new Histogram({
    name: "berth_time_to_first_ready_seconds",
    help: "Time from a resource's creation to its first Ready=True seen by this operator",
    labelNames: ["kind"],
    buckets: firstReadyBuckets,
    registers: [registry],
  });
  const capped = new Counter({
    name: "berth_resource_budget_capped_total",
    help: "Reconciles put off because their resource spent its share of the key's budget without progress",
    labelNames: ["kind"],
    registers: [registry],
  });
  return {
    track: (kind, list) => tracked.set(kind, list),
    observeFirstReady: (kind, seconds) => firstReady.observe({ kind }, seconds),
    budgetCapped: (kind) => capped.inc({ kind }),
  };
}

function readyReason(object: KubeObject): string | undefined {
  const status = object.status as { conditions?: Condition[] } | undefined;
  return getCondition(Array.isArray(status?.conditions) ? status.conditions : [], ConditionType.Ready)
    ?.reason;
}

function stalledReason(object: KubeObject): string | undefined {
  const status = object.status as { conditions?: Condition[] } | undefined;
  const stalled = getCondition(
    Array.isArray(status?.conditions) ? status.conditions : [],
    ConditionType.Stalled,
  );
  return stalled?.status === "True" ? stalled.reason : undefined;
}

function summaryCondition(object: KubeObject): ResourceCondition {
  const status = object.status as { conditions?: Condition[] } | undefined;
  const conditions = Array.isArray(status?.conditions) ? status.conditions : [];
  if (getCondition(conditions, ConditionType.Stalled)?.status === "True") return "Stalled";
  if (getCondition(conditions, ConditionType.Reconciling)?.status === "True") return "Reconciling";
  const ready = getCondition(conditions, ConditionType.Ready);
  if (ready?.status === "True") return "Ready";
  if (ready?.reason === "Suspended") return "Suspended";
  return "Unknown";
}
