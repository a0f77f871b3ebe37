import { Counter, Gauge, Histogram, Registry } from "prom-client";

/**
 * berth's Prometheus metrics. Names follow controller-runtime and client-go so existing dashboards
 * work; berth's own carry the `berth_` prefix. Each group has its own factory so a new group (for
 * example the hosting client's) is one function and one line in `createMetrics`.
 */
export interface Metrics {
  registry: Registry;
  controller: ControllerMetrics;
  workqueue: WorkqueueMetrics;
  leaderElection: LeaderElectionMetrics;
  watch: WatchMetrics;
}

export function createMetrics(registry: Registry = new Registry()): Metrics {
  return {
    registry,
    controller: createControllerMetrics(registry),
    workqueue: createWorkqueueMetrics(registry),
    leaderElection: createLeaderElectionMetrics(registry),
    watch: createWatchMetrics(registry),
  };
}

export interface ControllerMetrics {
  reconcileTotal: Counter<"controller" | "result">;
  reconcileErrors: Counter<"controller">;
  terminalReconcileErrors: Counter<"controller">;
  /** Reconciles that gave their worker back rather than wait for the hosting budget. */
  reconcileDeferred: Counter<"controller">;
  reconcileTime: Histogram<"controller">;
  activeWorkers: Gauge<"controller">;
  maxConcurrentReconciles: Gauge<"controller">;
}

/** controller-runtime's reconcile time buckets. */
const reconcileBuckets = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1, 1.25, 1.5,
  1.75, 2, 2.5, 3, 3.5, 4, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
];

export function createControllerMetrics(registry: Registry): ControllerMetrics {
  const registers = [registry];
  return {
    reconcileTotal: new Counter({
      name: "controller_runtime_reconcile_total",
      help: "Total number of reconciliations per controller",
      labelNames: ["controller", "result"],
      registers,
    }),
    reconcileErrors: new Counter({
      name: "controller_runtime_reconcile_errors_total",
      help: "Total number of reconciliation errors per controller",
      labelNames: ["controller"],
      registers,
    }),
    terminalReconcileErrors: new Counter({
      name: "controller_runtime_terminal_reconcile_errors_total",
      help: "Total number of terminal reconciliation errors per controller",
      labelNames: ["controller"],
      registers,
    }),
    reconcileDeferred: new Counter({
      name: "berth_reconcile_deferred_total",
      help: "Reconciles that gave their worker back instead of waiting for the hosting budget, requeued at their priority",
      labelNames: ["controller"],
      registers,
    }),
    reconcileTime: new Histogram({
      name: "controller_runtime_reconcile_time_seconds",
      help: "Length of time per reconciliation per controller",
      labelNames: ["controller"],
      buckets: reconcileBuckets,
      registers,
    }),
    activeWorkers: new Gauge({
      name: "controller_runtime_active_workers",
      help: "Number of currently used workers per controller",
      labelNames: ["controller"],
      registers,
    }),
    maxConcurrentReconciles: new Gauge({
      name: "controller_runtime_max_concurrent_reconciles",
      help: "Maximum number of concurrent reconciles per controller",
      labelNames: ["controller"],
      registers,
    }),
  };
}

/** What a queue reports at scrape time for the unfinished-work gauges. */
export interface UnfinishedWork {
  /** Sum over in-flight items of how long each has been processed, in seconds. */
  unfinishedSeconds: number;
  /** How long the oldest in-flight item has been processed, in seconds. */
  longestRunningSeconds: number;
}

export interface WorkqueueMetrics {
  depth: Gauge<"name">;
  adds: Counter<"name">;
  queueDuration: Histogram<"name">;
  workDuration: Histogram<"name">;
  retries: Counter<"name">;
  /** Registers a queue whose in-flight work is read at each scrape; returns the unregister function. */
  trackUnfinishedWork(name: string, read: () => UnfinishedWork): () => void;
}

/** client-go's workqueue buckets: 10ns to 1000s. */
const workqueueBuckets = Array.from({ length: 12 }, (_, i) => 1e-8 * 10 ** i);

export function createWorkqueueMetrics(registry: Registry): WorkqueueMetrics {
  const registers = [registry];
  const queues = new Map<string, () => UnfinishedWork>();
  const readAll = (field: keyof UnfinishedWork, gauge: Gauge<"name">) => {
    gauge.reset();
    for (const [name, read] of queues) gauge.set({ name }, read()[field]);
  };
  const unfinished: Gauge<"name"> = new Gauge({
    name: "workqueue_unfinished_work_seconds",
    help: "How many seconds of work has been done that is in progress and hasn't been observed by work_duration",
    labelNames: ["name"],
    registers,
    collect: () => readAll("unfinishedSeconds", unfinished),
  });
  const longest: Gauge<"name"> = new Gauge({
    name: "workqueue_longest_running_processor_seconds",
    help: "How many seconds has the longest running processor for workqueue been running",
    labelNames: ["name"],
    registers,
    collect: () => readAll("longestRunningSeconds", longest),
  });
  return {
    depth: new Gauge({
      name: "workqueue_depth",
      help: "Current depth of workqueue",
      labelNames: ["name"],
      registers,
    }),
    adds: new Counter({
      name: "workqueue_adds_total",
      help: "Total number of adds handled by workqueue",
      labelNames: ["name"],
      registers,
    }),
    queueDuration: new Histogram({
      name: "workqueue_queue_duration_seconds",
      help: "How long in seconds an item stays in workqueue before being requested",
      labelNames: ["name"],
      buckets: workqueueBuckets,
      registers,
    }),
    workDuration: new Histogram({
      name: "workqueue_work_duration_seconds",
      help: "How long in seconds processing an item from workqueue takes",
      labelNames: ["name"],
      buckets: workqueueBuckets,
      registers,
    }),
    retries: new Counter({
      name: "workqueue_retries_total",
      help: "Total number of retries handled by workqueue",
      labelNames: ["name"],
      registers,
    }),
    trackUnfinishedWork(name, read) {
      queues.set(name, read);
      return () => {
        if (queues.get(name) === read) queues.delete(name);
      };
    },
  };
}

export interface LeaderElectionMetrics {
  masterStatus: Gauge<"name">;
}

export function createLeaderElectionMetrics(registry: Registry): LeaderElectionMetrics {
  return {
    masterStatus: new Gauge({
      name: "leader_election_master_status",
      help: "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master",
      labelNames: ["name"],
      registers: [registry],
    }),
  };
}

export interface WatchMetrics {
  restarts: Counter<"resource">;
  relists: Counter<"resource">;
}

export function createWatchMetrics(registry: Registry): WatchMetrics {
  const registers = [registry];
  return {
    restarts: new Counter({
      name: "berth_watch_restarts_total",
      help: "Watches restarted after an error, a dropped connection or a silent stream, per resource",
      labelNames: ["resource"],
      registers,
    }),
    relists: new Counter({
      name: "berth_watch_relists_total",
      help: "Full relists after the initial one (resourceVersion expired or no resume point), per resource",
      labelNames: ["resource"],
      registers,
    }),
  };
}

/** `berth_build_info{version,commit,node} 1`, as Prometheus' own build_info: join on it to see what runs where. */
export function registerBuildInfo(
  registry: Registry,
  info: { version: string; commit: string; node: string },
): void {
  const gauge = new Gauge({
    name: "berth_build_info",
    help: "The berth build that runs: version, commit and Node.js version; always 1",
    labelNames: ["version", "commit", "node"],
    registers: [registry],
  });
  gauge.set(info, 1);
}

/** One credential's drift, read at scrape time. */
export interface DriftReading {
  credential: string;
  /** How late a drift check falling due now runs, because drift asks for more than the budget's background share. */
  lagSeconds: number;
  /** The drift interval as it comes out: the configured one plus that lag. */
  effectiveIntervalSeconds: number;
}

/** `berth_drift_lag_seconds` and `berth_drift_effective_interval_seconds`, per credential. */
export function createDriftMetrics(registry: Registry, read: () => DriftReading[]): void {
  const registers = [registry];
  const lag: Gauge<"credential"> = new Gauge({
    name: "berth_drift_lag_seconds",
    help: "How late a drift check falling due now runs, because drift asks for more reads than the key's background share",
    labelNames: ["credential"],
    registers,
    collect: () => {
      lag.reset();
      for (const reading of read()) lag.set({ credential: reading.credential }, reading.lagSeconds);
    },
  });
  const interval: Gauge<"credential"> = new Gauge({
    name: "berth_drift_effective_interval_seconds",
    help: "The drift interval as it comes out per credential: the configured interval plus the drift lag",
    labelNames: ["credential"],
    registers,
    collect: () => {
      interval.reset();
      for (const reading of read()) {
        interval.set({ credential: reading.credential }, reading.effectiveIntervalSeconds);
      }
    },
  });
}
