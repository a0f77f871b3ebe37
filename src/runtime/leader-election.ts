import { z } from "zod";
import type { Logger } from "../telemetry/logger.ts";
import type { LeaderElectionMetrics } from "../telemetry/metrics.ts";
import { isKubeError } from "./errors.ts";
import { deepEqual } from "./json.ts";
import type { KubeClient } from "./kube-client.ts";
import { microTime } from "./micro-time.ts";
import { delay } from "./timers.ts";

export interface LeaderElectionOptions {
  client: KubeClient;
  logger: Logger;
  metrics: LeaderElectionMetrics;
  /** Where the Lease lives. */
  namespace: string;
  name: string;
  /** Unique per replica: the pod name, say. */
  identity: string;
  /** client-go's defaults: 15 s, 10 s, 2 s. */
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  onStartedLeading: () => void;
  /** Renewal failed past the deadline: stop all leader-only work at once. */
  onLost: () => void;
}

const leaseSpecSchema = z.looseObject({
  holderIdentity: z.string().optional(),
  leaseDurationSeconds: z.number().optional(),
  acquireTime: z.string().optional(),
  renewTime: z.string().optional(),
  leaseTransitions: z.number().optional(),
});

const leaseSchema = z.looseObject({
  metadata: z.looseObject({ resourceVersion: z.string() }),
  spec: leaseSpecSchema.optional(),
});

type LeaseSpec = z.infer<typeof leaseSpecSchema>;

/** client-go's jitter factor for the acquire retry period. */
const jitterFactor = 1.2;

/**
 * client-go's leader election on a coordination.k8s.io/v1 Lease. A candidate takes the lease when
 * it is free or when its record has not changed for the record's lease duration, measured on the
 * candidate's own clock (no clock-skew assumptions); every write carries the resourceVersion read,
 * so two candidates never both win. The leader renews every retry period and gives up if it could
 * not renew within the renew deadline, which is shorter than the lease: it stops before anyone else
 * may start.
 */
export class LeaderElector {
  readonly #options: LeaderElectionOptions;
  readonly #leaseDurationMs: number;
  readonly #renewDeadlineMs: number;
  readonly #retryPeriodMs: number;
  readonly #stopping = new AbortController();
  readonly #path: string;
  #observed: { spec: LeaseSpec; resourceVersion: string; at: number } | undefined;
  #leading = false;
  #running: Promise<void> | undefined;

  constructor(options: LeaderElectionOptions) {
    this.#options = options;
    this.#leaseDurationMs = options.leaseDurationMs ?? 15_000;
    this.#renewDeadlineMs = options.renewDeadlineMs ?? 10_000;
    this.#retryPeriodMs = options.retryPeriodMs ?? 2_000;
    this.#path = `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(options.namespace)}/leases`;
    this.#setLeading(false);
  }

  isLeader(): boolean {
    return this.#leading;
  }

  start(): void {
    this.#running ??= this.#run();
  }

  /** Stops campaigning; a leader releases the lease so a successor need not wait for it to expire. */
  async stop(): Promise<void> {
    this.#stopping.abort();
    await this.#running;
    if (this.#leading) {
      await this.#release();
      this.#setLeading(false);
    }
  }

  async #run(): Promise<void> {
    const { logger } = this.#options;
    const signal = this.#stopping.signal;
    logger.info({ lease: this.#leaseName() }, "attempting to acquire leader lease");
    while (!signal.aborted && !(await this.#tryAcquireOrRenew(this.#renewDeadlineMs))) {
      await delay(this.#retryPeriodMs * (1 + Math.random() * jitterFactor), signal);
    }
    if (signal.aborted) return;
    logger.info({ lease: this.#leaseName() }, "acquired leader lease");
    this.#setLeading(true);
    this.#options.onStartedLeading();
    while (!signal.aborted) {
      await delay(this.#retryPeriodMs, signal);
      if (signal.aborted) return;
      const renewed = await this.#renewWithinDeadline();
      if (signal.aborted) return;
      if (!renewed) {
        logger.error(
          { lease: this.#leaseName() },
          "failed to renew leader lease within the deadline; leadership lost",
        );
        this.#setLeading(false);
        this.#options.onLost();
        return;
      }
    }
  }

  async #renewWithinDeadline(): Promise<boolean> {
    const deadline = Date.now() + this.#renewDeadlineMs;
    for (;;) {
      const remaining = deadline - Date.now();
      if (remaining <= 0 || this.#stopping.signal.aborted) return false;
      if (await this.#tryAcquireOrRenew(remaining)) return true;
      await delay(Math.min(this.#retryPeriodMs, Math.max(0, deadline - Date.now())), this.#stopping.signal);
    }
  }

  async #tryAcquireOrRenew(timeoutMs: number): Promise<boolean> {
    const now = Date.now();
    const desired: LeaseSpec = {
      holderIdentity: this.#options.identity,
      leaseDurationSeconds: Math.round(this.#leaseDurationMs / 1000),
      acquireTime: microTime(now),
      renewTime: microTime(now),
      leaseTransitions: 0,
    };
    try {
      const lease = await this.#read(timeoutMs);
      if (lease === undefined) {
        const created = await this.#write("POST", this.#path, desired, undefined, timeoutMs);
        this.#observe(created.spec ?? desired, created.metadata.resourceVersion, now);
        return true;
      }
      const current = lease.spec ?? {};
      if (this.#observed === undefined || !deepEqual(this.#observed.spec, current)) {
        this.#observe(current, lease.metadata.resourceVersion, now);
      }
      const observedAt = this.#observed?.at ?? now;
      const holder = current.holderIdentity ?? "";
      const validUntil = observedAt + (current.leaseDurationSeconds ?? 0) * 1000;
      if (holder !== "" && holder !== this.#options.identity && validUntil > now) return false;
      if (holder === this.#options.identity) {
        desired.acquireTime = current.acquireTime ?? desired.acquireTime;
        desired.leaseTransitions = current.leaseTransitions ?? 0;
      } else {
        desired.leaseTransitions = (current.leaseTransitions ?? 0) + 1;
      }
      const updated = await this.#write(
        "PUT",
        `${this.#path}/${encodeURIComponent(this.#options.name)}`,
        desired,
        lease.metadata.resourceVersion,
        timeoutMs,
      );
      this.#observe(updated.spec ?? desired, updated.metadata.resourceVersion, now);
      return true;
    } catch (error) {
      // A conflict means another candidate wrote first: expected, not worth a warning.
      if (!isKubeError(error, "conflict")) {
        this.#options.logger.warn({ err: error, lease: this.#leaseName() }, "leader lease request failed");
      }
      return false;
    }
  }

  /** Hands the lease back: no holder and a 1 s duration, so a candidate takes over at its next try. */
  async #release(): Promise<void> {
    try {
      const lease = await this.#read(this.#renewDeadlineMs);
      if (lease?.spec?.holderIdentity !== this.#options.identity) return;
      const now = microTime(Date.now());
      const released: LeaseSpec = {
        holderIdentity: "",
        leaseDurationSeconds: 1,
        acquireTime: now,
        renewTime: now,
        leaseTransitions: lease.spec.leaseTransitions ?? 0,
      };
      const path = `${this.#path}/${encodeURIComponent(this.#options.name)}`;
      await this.#write("PUT", path, released, lease.metadata.resourceVersion, this.#renewDeadlineMs);
      this.#options.logger.info({ lease: this.#leaseName() }, "released leader lease");
    } catch (error) {
      this.#options.logger.warn({ err: error, lease: this.#leaseName() }, "could not release leader lease");
    }
  }

  async #read(timeoutMs: number) {
    try {
      const body = await this.#options.client.call(
        "GET",
        `${this.#path}/${encodeURIComponent(this.#options.name)}`,
        {
          timeoutMs,
          signal: AbortSignal.timeout(timeoutMs),
        },
      );
      return leaseSchema.parse(body);
    } catch (error) {
      if (isKubeError(error, "not_found")) return undefined;
      throw error;
    }
  }

  async #write(
    method: "POST" | "PUT",
    path: string,
    spec: LeaseSpec,
    resourceVersion: string | undefined,
    timeoutMs: number,
  ) {
    const metadata = {
      name: this.#options.name,
      namespace: this.#options.namespace,
      ...(resourceVersion ? { resourceVersion } : {}),
    };
    const body = await this.#options.client.call(method, path, {
      body: { apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata, spec },
      timeoutMs,
      signal: AbortSignal.timeout(timeoutMs),
    });
    return leaseSchema.parse(body);
  }

  #observe(spec: LeaseSpec, resourceVersion: string, at: number): void {
    this.#observed = { spec, resourceVersion, at };
  }

  #setLeading(leading: boolean): void {
    this.#leading = leading;
    this.#options.metrics.masterStatus.set({ name: this.#options.name }, leading ? 1 : 0);
  }

  #leaseName(): string {
    return `${this.#options.namespace}/${this.#options.name}`;
  }
}
