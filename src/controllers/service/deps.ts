import type { EventRecorder, KubeClient, ObjectCache, ResourceType } from "../../runtime/index.ts";
import type { CostMetrics } from "../../telemetry/cost-metrics.ts";
import type { Logger } from "../../telemetry/logger.ts";
import type { ClaimLocks } from "./claim-lock.ts";
import type { ClaimWaiters } from "./claims.ts";
import { type CredentialSettings, type CredentialsResult, resolveCredentials } from "./credentials.ts";
import type { HostingAccess } from "./hosting-access.ts";
import type { ManagementSource } from "./management.ts";
import type { ResourceMetrics } from "./metrics.ts";
import type { SecretUsers } from "./secret-users.ts";
import type { SecretLookup } from "./secrets.ts";
import type { SpendLedger } from "./spend-ledger.ts";

export { resourceTypeOf } from "./resource-type.ts";

/** Timings every controller follows (milliseconds). */
export interface ControllerSettings {
  /** Periodic re-read of each external object, spread ±25 % per resource. */
  driftIntervalMs: number;
  /** Retry of a Stalled resource when nothing about it changed. */
  stalledRetryMs: number;
  /** Work in flight at the service (app start, stop, build): see PollIntervals. */
  polls: PollIntervals;
  /** How often each credential's balance is read at most (default 5 minutes). */
  balanceIntervalMs?: number | undefined;
  /**
   * How old a ServerOrder's settled growth or replacement order must be, its servers all gone,
   * before its entry is folded out of status (default 25 hours: past the service's 24-hour
   * Idempotency-Key lifetime and the clock slack, so no call in doubt can still be looking for it).
   * Measured against the service's creation time: a test whose simulator clock runs fast sets it
   * below zero.
   */
  foldOrdersAfterMs?: number | undefined;
  /** How long a SpendLimit commitment counts at most when nothing ends it sooner (default 30 minutes). */
  spendCommitmentTtlMs?: number | undefined;
}

/** How long to wait before looking at work in flight again, by what is happening (milliseconds). */
export interface PollIntervals {
  /** Requested or provisioning; also the first read after a create or start. */
  startingMs: number;
  /** Running, endpoint not wired yet. */
  wiringMs: number;
  stoppingMs: number;
  /** A build whose answer carried no pollAfterSec; also the first build read after a create. */
  buildingMs: number;
  /** Deferred or start_blocked: the service resumes by itself once the cause is gone. */
  waitingMs: number;
}

export const defaultSettings: ControllerSettings = {
  driftIntervalMs: 10 * 60_000,
  stalledRetryMs: 5 * 60_000,
  polls: { startingMs: 4000, wiringMs: 2000, stoppingMs: 2000, buildingMs: 5000, waitingMs: 60_000 },
};

/** What the operator gives every controller. */
export interface ControllerDeps {
  kube: KubeClient;
  hosting: HostingAccess;
  credentials: CredentialSettings;
  recorder: EventRecorder;
  logger: Logger;
  resourceMetrics: ResourceMetrics;
  /** Cost, balance and runway metrics, fed by the billing controller. */
  costMetrics?: CostMetrics | undefined;
  /** The shared informer of a resource type, made (and run by the manager) on first use. */
  informer(type: ResourceType): ObjectCache;
  /** The Secrets berth's resources read, and who reads each (see `SecretUsers`). */
  secrets: SecretUsers;
  settings: ControllerSettings;
  /**
   * Where claimants of one external object are looked for, who waits for an object to be free, and
   * where the claim Leases that decide racing claimants live (the operator's namespace).
   */
  claims: { namespaces: readonly string[]; waiters: ClaimWaiters; locks: ClaimLocks };
  /** Decides calls that add spend against the namespace's SpendLimits; none: nothing is checked. */
  spend?: SpendLedger | undefined;
  /** Namespace pauses and defaults (management and deletion policies), and the operator's. */
  management: ManagementSource;
  now(): number;
  random(): number;
}

/** Secrets as the operator's Secret cache holds them. */
export function secretLookup(deps: ControllerDeps): SecretLookup {
  return (ref) => deps.secrets.get(ref);
}

/** The credentials of a resource (see `resolveCredentials`). */
export function credentialsFor(
  deps: ControllerDeps,
  resource: {
    metadata: { namespace?: string | undefined };
    spec: { credentialsRef?: { name: string } | undefined };
  },
): CredentialsResult {
  const namespace = resource.metadata.namespace ?? "default";
  return resolveCredentials(namespace, resource.spec.credentialsRef, deps.credentials, secretLookup(deps));
}
