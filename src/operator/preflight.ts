import { setTimeout as delay } from "node:timers/promises";
import { z } from "zod";
import { apiVersion, crdRevision, crdRevisionLabel, group } from "../api/meta.ts";
import { KubeApiError, type KubeClient } from "../runtime/index.ts";
import type { Logger } from "../telemetry/logger.ts";

/** Every reason the operator refuses to start for; docs/troubleshooting/reasons.md has an entry for each. */
export const startupErrorCodes = [
  "cluster_unreachable",
  "crds_missing",
  "crds_outdated",
  "access_refused",
  "caches_not_synced",
  "metrics_certificate_unusable",
] as const;
export type StartupErrorCode = (typeof startupErrorCodes)[number];

/** Why the operator cannot start, in one line that says what to fix. */
export class StartupError extends Error {
  readonly code: StartupErrorCode;

  constructor(code: StartupErrorCode, message: string) {
    super(message);
    this.name = "StartupError";
    this.code = code;
  }
}

export interface PreflightOptions {
  logger: Logger;
  /** Resource plurals the operator reconciles (apps, grids, …). */
  plurals: readonly string[];
  /** This operator's version, named when it refuses older CRDs. */
  version: string;
  /** How long an unreachable API server is retried before giving up. */
  timeoutMs: number;
  now?: () => number;
}

const resourceListSchema = z.object({ resources: z.array(z.object({ name: z.string() })) });

const installCrds = "install them: kubectl apply --server-side -f crds/ (or deploy/crds, or the Helm chart)";

const crdSchema = z.object({
  metadata: z.object({ name: z.string(), labels: z.record(z.string(), z.string()).optional() }),
});

/**
 * Before any informer starts: the API server answers (retried with backoff up to `timeoutMs`, then
 * given up), and it serves every berth resource. Without this a wrong start only logs forever.
 */
export async function preflight(kube: KubeClient, options: PreflightOptions): Promise<void> {
  const resources = await discover(kube, options);
  const served = new Set(resources.map((r) => r.name));
  const missing = options.plurals.filter((plural) => !served.has(plural));
  if (missing.length > 0) {
    const names = missing.map((plural) => `${plural}.${group}`).join(", ");
    throw new StartupError("crds_missing", `the berth CRDs of ${names} are not installed; ${installCrds}`);
  }
  await refuseOlderCrds(kube, options);
}

/**
 * Every berth CRD must carry at least this operator's `crdRevision`: on an older schema the
 * apiserver silently prunes status fields it writes (its exactly-once markers among them).
 */
async function refuseOlderCrds(kube: KubeClient, options: PreflightOptions): Promise<void> {
  const older: string[] = [];
  let lowest = Number.POSITIVE_INFINITY;
  for (const plural of options.plurals) {
    const path = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${plural}.${group}`;
    const crd = crdSchema.parse(await readCrd(kube, path));
    const label = Number(crd.metadata.labels?.[crdRevisionLabel] ?? "0");
    const revision = Number.isInteger(label) ? label : 0;
    if (revision >= crdRevision) continue;
    older.push(crd.metadata.name);
    lowest = Math.min(lowest, revision);
  }
  if (older.length === 0) return;
  throw new StartupError(
    "crds_outdated",
    `the berth CRDs ${older.join(", ")} are revision ${lowest}, older than revision ${crdRevision} that berth ${options.version} needs; update them: kubectl apply --server-side -f crds/ of berth ${options.version} (deploy/crds for kustomize; helm upgrade updates the chart's)`,
  );
}

async function discover(kube: KubeClient, options: PreflightOptions): Promise<{ name: string }[]> {
  const now = options.now ?? Date.now;
  const deadline = now() + options.timeoutMs;
  const path = `/apis/${apiVersion}`;
  for (let attempt = 1; ; attempt++) {
    try {
      return resourceListSchema.parse(await kube.call("GET", path, { timeoutMs: 10_000 })).resources;
    } catch (error) {
      if (!(error instanceof KubeApiError)) throw error;
      if (error.code === "not_found") {
        throw new StartupError(
          "crds_missing",
          `the berth CRDs are not installed (the API server does not serve ${apiVersion}); ${installCrds}`,
        );
      }
      if (error.code === "unauthorized" || error.code === "forbidden") {
        throw new StartupError(
          "access_refused",
          `the API server refused berth's credentials (${error.message}); check the kubeconfig user or the service account's RBAC`,
        );
      }
      if (!retriable(error)) throw error;
      const wait = Math.min(1000 * 2 ** (attempt - 1), 10_000, deadline - now());
      if (wait <= 0) {
        const seconds = Math.round(options.timeoutMs / 1000);
        throw new StartupError(
          "cluster_unreachable",
          `cannot reach the Kubernetes API server within ${seconds}s (${error.message}); check --kubeconfig or KUBECONFIG, and that the cluster is up`,
        );
      }
      options.logger.warn({ error: error.message, attempt, retryInMs: wait }, "API server not reachable yet");
      await delay(wait);
    }
  }
}

function retriable(error: KubeApiError): boolean {
  return error.code === "transport" || error.code === "server_error" || error.code === "too_many_requests";
}

async function readCrd(kube: KubeClient, path: string): Promise<unknown> {
  try {
    return await kube.call("GET", path, { timeoutMs: 10_000 });
  } catch (error) {
    if (!(error instanceof KubeApiError) || error.code !== "forbidden") throw error;
    throw new StartupError(
      "access_refused",
      `berth may not read its CRDs to check their revision (${error.message}); apply this release's RBAC (it grants get on the berth CRDs)`,
    );
  }
}
