import { setTimeout as delay } from "node:timers/promises";
import { z } from "zod";
import { apiVersion } from "../api/meta.ts";
import { KubeApiError, type KubeClient } from "../runtime/index.ts";
import type { Logger } from "../telemetry/logger.ts";

/** Why the operator cannot start, in one line that says what to fix. */
export class StartupError extends Error {
  readonly code: "cluster_unreachable" | "crds_missing" | "access_refused" | "caches_not_synced";

  constructor(code: StartupError["code"], message: string) {
    super(message);
    this.name = "StartupError";
    this.code = code;
  }
}

export interface PreflightOptions {
  logger: Logger;
  /** Resource plurals the operator reconciles (apps, grids, …). */
  plurals: readonly string[];
  /** How long an unreachable API server is retried before giving up. */
  timeoutMs: number;
  now?: () => number;
}

const resourceListSchema = z.object({ resources: z.array(z.object({ name: z.string() })) });

const installCrds = "install them: kubectl apply --server-side -f crds/ (or deploy/crds, or the Helm chart)";

/**
 * Before any informer starts: the API server answers (retried with backoff up to `timeoutMs`, then
 * given up), and it serves every berth resource. Without this a wrong start only logs forever.
 */
export async function preflight(kube: KubeClient, options: PreflightOptions): Promise<void> {
  const resources = await discover(kube, options);
  const served = new Set(resources.map((r) => r.name));
  const missing = options.plurals.filter((plural) => !served.has(plural));
  if (missing.length > 0) {
    const names = missing.map((plural) => `${plural}.${apiVersion.split("/")[0]}`).join(", ");
    throw new StartupError("crds_missing", `the berth CRDs of ${names} are not installed; ${installCrds}`);
  }
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
