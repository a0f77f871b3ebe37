import type { Logger } from "../telemetry/logger.ts";
import type { Metrics } from "../telemetry/metrics.ts";
import {
  defaultLivenessLimits,
  type LivenessLimits,
  LoopLagMonitor,
  livenessProblems,
  type WorkProgress,
} from "./health.ts";
import type { ObjectCache } from "./informer.ts";
import { type LeaderElectionOptions, LeaderElector } from "./leader-election.ts";
import { ProbeServer, type ServerSecurity } from "./probes.ts";
import { delay } from "./timers.ts";

/** Something the manager starts and stops: an informer, a controller, a periodic job. */
export interface Runnable {
  start(): void | Promise<void>;
  /** Graceful: finish what is in flight. */
  stop(): Promise<void>;
  /** Immediate (leadership lost): stop taking work and cancel what is in flight. */
  abort?(): void;
  /** How its workers are doing, for /healthz. */
  progress?(): WorkProgress;
}

export interface ManagerOptions {
  logger: Logger;
  metrics: Metrics;
  /** Serves /healthz and /readyz, e.g. ":8081"; no server when undefined. */
  healthAddr?: string;
  /** Serves /metrics, e.g. ":8080"; no server when undefined. */
  metricsAddr?: string;
  /** Serve /metrics over HTTPS to authorized callers only; plain HTTP to anyone when undefined. */
  metricsSecurity?: ServerSecurity;
  /** Run leader-only work only while holding this lease; without it, this replica always leads. */
  leaderElection?: Omit<LeaderElectionOptions, "logger" | "metrics" | "onStartedLeading" | "onLost">;
  /** Called once leadership is lost and leader-only work was aborted; the CLI exits the process. */
  onLeadershipLost?: () => void;
  /**
   * How long a stop lets in-flight reconciles finish before aborting them (default 20 s, inside
   * Kubernetes' 30 s termination grace period).
   */
  shutdownGraceMs?: number;
  /** When /healthz fails: a blocked event loop, workers making no progress while work waits. */
  liveness?: Partial<LivenessLimits>;
  /** Epoch ms; injectable for tests (default Date.now). */
  now?: () => number;
}

/**
 * Runs informers always and controllers only while leading; serves probes and metrics; stops in
 * order: controllers drain their in-flight reconciles, the lease is released, informers stop.
 */
export class Manager {
  readonly #options: ManagerOptions;
  readonly #logger: Logger;
  readonly #informers: ObjectCache[] = [];
  readonly #always: Runnable[] = [];
  readonly #leaderOnly: Runnable[] = [];
  readonly #health: ProbeServer;
  readonly #metricsServer: ProbeServer;
  readonly #loopLag: LoopLagMonitor;
  #elector: LeaderElector | undefined;
  #leading = false;
  #stopping: Promise<void> | undefined;
  /** The bound addresses once started (useful with port 0). */
  readonly addresses: { health?: string; metrics?: string } = {};

  constructor(options: ManagerOptions) {
    this.#options = options;
    this.#logger = options.logger;
    this.#loopLag = new LoopLagMonitor();
    this.#health = new ProbeServer({
      "/healthz": async () => {
        const problems = this.livenessProblems();
        return problems.length === 0
          ? { status: 200, body: "ok\n" }
          : { status: 503, body: `${problems.join("\n")}\n` };
      },
      "/readyz": async () =>
        this.ready() ? { status: 200, body: "ok\n" } : { status: 503, body: "informers not synced\n" },
    });
    const { registry } = options.metrics;
    this.#metricsServer = new ProbeServer(
      {
        "/metrics": async () => ({
          status: 200,
          body: await registry.metrics(),
          contentType: registry.contentType,
        }),
      },
      options.metricsSecurity,
    );
  }

  /** Informers run on every replica, so a new leader starts with warm caches. */
  addInformer(informer: ObjectCache): this {
    this.#informers.push(informer);
    this.#always.push(informer);
    return this;
  }

  /** Controllers (and other writers) run only on the leader. */
  addController(runnable: Runnable): this {
    this.#leaderOnly.push(runnable);
    return this;
  }

  /** Runs on every replica regardless of leadership. */
  add(runnable: Runnable): this {
    this.#always.push(runnable);
    return this;
  }

  /** True once every informer has synced. */
  ready(): boolean {
    return this.#informers.every((informer) => informer.hasSynced());
  }

  /** Why /healthz fails (the kubelet then restarts the process); empty while alive. */
  livenessProblems(): string[] {
    const work = this.#leading ? this.#leaderOnly.flatMap((r) => (r.progress ? [r.progress()] : [])) : [];
    const now = this.#options.now?.() ?? Date.now();
    const limits = { ...defaultLivenessLimits, ...this.#options.liveness };
    return livenessProblems({ loopLagMs: this.#loopLag.lagMs(), work, now }, limits);
  }

  isLeader(): boolean {
    return this.#leading;
  }

  /** Listens, starts informers and the election (or the controllers at once), and returns. */
  async start(): Promise<void> {
    const { healthAddr, metricsAddr, leaderElection } = this.#options;
    this.#loopLag.start();
    if (healthAddr !== undefined) this.addresses.health = await this.#health.listen(healthAddr);
    if (metricsAddr !== undefined) this.addresses.metrics = await this.#metricsServer.listen(metricsAddr);
    for (const runnable of this.#always) await runnable.start();
    if (leaderElection === undefined) {
      this.#startLeading();
      return;
    }
    this.#elector = new LeaderElector({
      ...leaderElection,
      logger: this.#logger.child({ component: "leader-election" }),
      metrics: this.#options.metrics.leaderElection,
      onStartedLeading: () => this.#startLeading(),
      onLost: () => this.#loseLeadership(),
    });
    this.#elector.start();
  }

  /** Stops taking work, waits for in-flight reconciles, releases the lease, stops informers. Idempotent. */
  stop(): Promise<void> {
    this.#stopping ??= this.#stop();
    return this.#stopping;
  }

  async #stop(): Promise<void> {
    this.#logger.info("stopping: draining in-flight reconciles");
    await this.#drainLeaderOnly(this.#options.shutdownGraceMs ?? 20_000);
    this.#leading = false;
    await this.#elector?.stop();
    await Promise.all(this.#always.map((r) => r.stop()));
    await Promise.all([this.#health.close(), this.#metricsServer.close()]);
    this.#loopLag.stop();
    this.#logger.info("stopped");
  }

  /** Graceful stop of the leader-only work; what is still in flight after `graceMs` is aborted. */
  async #drainLeaderOnly(graceMs: number): Promise<void> {
    const drained = Promise.all(this.#leaderOnly.map((r) => r.stop()));
    const graceOver = new AbortController();
    const inTime = await Promise.race([
      drained.then(() => true),
      delay(graceMs, graceOver.signal).then(() => false),
    ]);
    graceOver.abort();
    if (inTime) return;
    this.#logger.warn(
      { graceMs },
      "stopping: reconciles still in flight after the grace period; aborting them",
    );
    for (const runnable of this.#leaderOnly) runnable.abort?.();
    await drained;
  }

  #startLeading(): void {
    if (this.#stopping !== undefined) return;
    this.#leading = true;
    for (const runnable of this.#leaderOnly) {
      Promise.resolve(runnable.start()).catch((error: unknown) =>
        this.#logger.error({ err: error }, "a leader-only runnable failed to start"),
      );
    }
  }

  #loseLeadership(): void {
    this.#leading = false;
    for (const runnable of this.#leaderOnly) {
      if (runnable.abort) runnable.abort();
      else void runnable.stop();
    }
    this.#options.onLeadershipLost?.();
  }
}
