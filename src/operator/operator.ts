import { hostname } from "node:os";
import type { Registry } from "prom-client";
import { appNames, group, serverOrderNames } from "../api/meta.ts";
import { holdsCredentialsFinalizer } from "../controllers/credentials/usage.ts";
import { ClaimWaiters } from "../controllers/service/claims.ts";
import type { CredentialSettings } from "../controllers/service/credentials.ts";
import { type ControllerSettings, defaultSettings, resourceTypeOf } from "../controllers/service/deps.ts";
import { HostingAccess } from "../controllers/service/hosting-access.ts";
import { IdentityCache } from "../controllers/service/identity.ts";
import { createResourceMetrics } from "../controllers/service/metrics.ts";
import { NamespaceDefaults, namespaceType } from "../controllers/service/namespaces.ts";
import { ResourceBudget } from "../controllers/service/resource-budget.ts";
import { SecretUsers } from "../controllers/service/secret-users.ts";
import { secretType } from "../controllers/service/secrets.ts";
import { SpendLedger, spendLimitType } from "../controllers/service/spend-ledger.ts";
import { claimsWatch } from "../controllers/skeleton/claim.ts";
import { spendWatch } from "../controllers/skeleton/spend-watch.ts";
import { namespacesWatch } from "../controllers/skeleton/watches.ts";
import { trackSpendLimits } from "../controllers/spend-limit/metrics.ts";
import { createHostingClientCache, type HostingClientCacheOptions } from "../hosting/index.ts";
import {
  CertificateDirectory,
  CertificateDirectoryError,
  type ClusterAccess,
  type ConnectionSource,
  Controller,
  controllerRateLimiter,
  DemandCache,
  EventRecorder,
  HeapTrimmer,
  KubeClient,
  KubeconfigSource,
  kubeAuthorizer,
  kubeEventSink,
  Manager,
  type ObjectCache,
  type ReviewCacheOptions,
  type ServerSecurity,
} from "../runtime/index.ts";
import { createCostMetrics } from "../telemetry/cost-metrics.ts";
import { createHostingMetrics } from "../telemetry/hosting-metrics.ts";
import type { Logger } from "../telemetry/logger.ts";
import { createDriftMetrics, createMetrics, type WatchMetrics } from "../telemetry/metrics.ts";
import { createSpendMetrics } from "../telemetry/spend-metrics.ts";
import { type OperatorConfig, type OperatorConfigInput, operatorConfigSchema } from "./config.ts";
import { controllers } from "./controllers.ts";
import { InformerSet } from "./informers.ts";
import { preflight, StartupError } from "./preflight.ts";
import { Shard } from "./shard.ts";

export interface OperatorDeps {
  logger: Logger;
  registry: Registry;
  /** Use this cluster instead of loading `config.kubeconfig` (tests, `berth dev`: an in-process KubeConfig). */
  kubeConfig?: ClusterAccess | ConnectionSource;
  /** Hosting client tuning: a sped-up clock's rate-limit window in benchmarks, say. */
  hosting?: Pick<
    HostingClientCacheOptions,
    "limits" | "limiterTuning" | "clock" | "backoff" | "maxBudgetWaitMs" | "timeoutsMs"
  >;
  /** Poll and retry timings (defaults suit the real service). */
  settings?: Partial<Omit<ControllerSettings, "driftIntervalMs">>;
  /** How long /metrics token and access reviews are reused (controller-runtime's TTLs by default). */
  metricsReviewCache?: ReviewCacheOptions;
  /** The running build's version, named when the operator refuses older CRDs. */
  version?: string;
  /** Leadership was lost and controllers stopped: the CLI exits so a fresh process campaigns again. */
  onLeadershipLost?: () => void;
}

export interface RunningOperator {
  /** Resolves once every informer has synced and the controllers run (or wait for leadership). */
  ready: Promise<void>;
  /** Bound addresses of the probe and metrics servers. */
  addresses: { health?: string; metrics?: string };
  /** Drains in-flight reconciles, releases the lease, stops watches, closes connections. */
  stop(): Promise<void>;
}

export class OperatorConfigError extends Error {
  readonly code = "invalid_operator_config";
}

/**
 * Reconciles a worker may have begun at once: a reconcile waiting on the service's answer (a create
 * takes seconds) gives its worker back, so calls that mostly wait run side by side.
 */
const inFlightPerWorker = 8;

/** Builds the manager, the informers and every registered controller, and starts them. */
export async function startOperator(
  input: OperatorConfigInput,
  deps: OperatorDeps,
): Promise<RunningOperator> {
  const parsed = operatorConfigSchema.safeParse(input);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    throw new OperatorConfigError(`invalid operator configuration: ${problems}`);
  }
  const config = parsed.data;
  const { logger, registry } = deps;
  // Before the cluster is dialled: a wrong mount is told at once, not after the API server's retries.
  const mountedCertificate =
    config.metricsAddr !== "" && config.metricsSecure && config.metricsCertDir !== undefined
      ? await loadMetricsCertificate(config.metricsCertDir, logger)
      : undefined;
  const kube = new KubeClient(
    deps.kubeConfig ??
      (await KubeconfigSource.load(config.kubeconfig === undefined ? {} : { path: config.kubeconfig })),
  );
  await preflight(kube, {
    logger,
    plurals: controllers.filter((c) => c.type.group === group).map((c) => c.type.plural),
    version: deps.version ?? "(development)",
    timeoutMs: config.startTimeout,
  }).catch(async (error: unknown) => {
    await kube.close();
    throw error;
  });
  const metrics = createMetrics(registry);
  const identity = `${hostname()}-${process.pid}`;
  const shard = new Shard(config.watchLabelSelector);
  const manager = new Manager({
    logger,
    metrics,
    ...(config.healthAddr === "" ? {} : { healthAddr: config.healthAddr }),
    ...(config.metricsAddr === "" ? {} : { metricsAddr: config.metricsAddr }),
    ...(config.metricsAddr !== "" && config.metricsSecure
      ? { metricsSecurity: await metricsSecurity(kube, mountedCertificate, deps.metricsReviewCache) }
      : {}),
    ...(config.leaderElect
      ? {
          leaderElection: {
            client: kube,
            namespace: config.leaderElectionNamespace,
            name: shard.leaseName,
            identity,
          },
        }
      : {}),
    ...(deps.onLeadershipLost === undefined ? {} : { onLeadershipLost: deps.onLeadershipLost }),
    shutdownGraceMs: config.shutdownGrace,
    liveness: { stuckAfterMs: config.stuckAfter },
  });
  const informers = new InformerSet({
    client: kube,
    logger,
    metrics: metrics.watch,
    namespaces: config.namespaces,
    register: (informer) => manager.addInformer(informer),
  });
  const credentials = { defaultSecret: config.defaultCredentials, defaultBaseUrl: config.hostingBaseUrl };
  const secrets = secretUsers(
    informers,
    { client: kube, logger, metrics: metrics.watch },
    config,
    credentials,
  );
  const hostingMetrics = createHostingMetrics(registry);
  const hosting = new HostingAccess(
    createHostingClientCache({
      // A worker never sleeps through a long Retry-After: the reconcile requeues after it instead.
      ...deps.hosting,
      backoff: { maxServerWaitMs: 1000, ...deps.hosting?.backoff },
      // Nor is it held by the budget: a call that finds no room within a second gives the worker
      // back, and the reconcile is requeued, at its priority, for when its turn is expected.
      maxBudgetWaitMs: deps.hosting?.maxBudgetWaitMs ?? 1000,
      // Drift spread over the window, not a burst at its start: a change finds room within a pace.
      limiterTuning: {
        reserveShare: config.backgroundReserve,
        paceBackground: true,
        ...deps.hosting?.limiterTuning,
      },
      // A reconcile holds its connection while the service takes seconds to create: one per
      // reconcile in flight.
      transportOptions: { connections: config.concurrency * inFlightPerWorker },
      observer: hostingMetrics.observer,
      logger,
    }),
    new IdentityCache(),
    new ResourceBudget(config.resourceBudgetShare, Date.now),
  );
  const recorder = new EventRecorder({ sink: kubeEventSink(kube), logger, reportingInstance: identity });
  const resourceMetrics = createResourceMetrics(registry);
  const costMetrics = createCostMetrics(registry);
  const spend = new SpendLedger({
    kube,
    costed: [appNames, serverOrderNames].map(resourceTypeOf),
    now: Date.now,
    ttlMs: deps.settings?.spendCommitmentTtlMs,
  });
  trackSpendLimits(createSpendMetrics(registry), informers.get(spendLimitType));
  const controllerDeps = {
    kube,
    hosting,
    credentials,
    secrets,
    recorder,
    logger,
    resourceMetrics,
    costMetrics,
    informer: informers.get.bind(informers),
    settings: {
      ...defaultSettings,
      ...deps.settings,
      polls: { ...defaultSettings.polls, ...deps.settings?.polls },
      driftIntervalMs: config.driftInterval,
    },
    claims: {
      namespaces: config.namespaces,
      waiters: new ClaimWaiters(),
      locks: { kube, namespace: config.leaderElectionNamespace },
    },
    spend,
    // The Namespaces' pause and defaults over the operator's flags (resource → namespace → flag).
    management: new NamespaceDefaults(informers.get(namespaceType), {
      paused: config.paused,
      policies: config.defaultManagementPolicies,
      deletionPolicy: config.defaultDeletionPolicy,
    }),
    now: Date.now,
    random: Math.random,
  };
  const running: Controller[] = [];
  for (const definition of controllers) {
    const { reconcile, watches } = definition.setup(controllerDeps);
    const informer = informers.get(definition.type);
    const owned = shard.source(informer);
    // berth_resources counts berth's own kinds; the credentials controller's Secrets are not resources.
    if (definition.type.group === group) {
      resourceMetrics.track(definition.type.kind ?? definition.name, () => owned.list());
    }
    const controller = new Controller({
      name: definition.name,
      informer: owned,
      reconcile: shard.reconciler(reconcile, informer),
      logger,
      metrics,
      concurrency: config.concurrency,
      maxInFlight: config.concurrency * inFlightPerWorker,
      // Failures retried from 1 s up to 5 min: the hosting client already retried quick ones.
      rateLimiter: controllerRateLimiter({ baseDelayMs: 1000, maxDelayMs: 300_000 }),
    });
    // A holder's deletion wakes the resources of its kind refused its object (in every kind, once).
    // A SpendLimit's rise or freed spend wakes the resources it refused, and a Namespace's pause
    // lifted (or its defaults changed) wakes its resources (in every kind, once).
    const spending = definition.type.group === group && definition.type.plural !== spendLimitType.plural;
    const claims = spending
      ? [
          claimsWatch(controllerDeps, definition.type),
          spendWatch(controllerDeps, definition.type),
          namespacesWatch(controllerDeps, definition.type),
        ]
      : [];
    for (const watch of [...watches, ...claims])
      controller.watch(watch.informer, shard.keys(watch.map, informer));
    manager.addController(controller);
    running.push(controller);
  }
  // Drift is late when its key's budget booked it a later turn, or when the workers shared by
  // every key have not reached its key in the queue yet.
  createDriftMetrics(registry, () => {
    const queued = Math.max(0, ...running.map((c) => c.queue.oldestWaitMs("background")));
    return hosting.driftLag().map(({ credentialId, lagMs }) => {
      const late = Math.max(lagMs, queued);
      return {
        credential: credentialId,
        lagSeconds: late / 1000,
        effectiveIntervalSeconds: (config.driftInterval + late) / 1000,
      };
    });
  });
  manager.add(new HeapTrimmer({ busy: () => running.some((c) => c.busy()), logger }));
  informers.seal();
  await manager.start();
  logger.info(
    {
      namespaces: config.namespaces.length === 0 ? "all" : config.namespaces,
      shard: shard.everything ? "all" : shard.selector.text,
      ...(config.leaderElect ? { lease: `${config.leaderElectionNamespace}/${shard.leaseName}` } : {}),
      controllers: controllers.map((c) => c.name),
    },
    "operator started",
  );
  const ready = synced(informers.all(), config.startTimeout);
  // Handled here too: a caller that stops before awaiting `ready` must not leave an unhandled rejection.
  ready.catch(() => undefined);
  return {
    ready,
    addresses: manager.addresses,
    async stop() {
      await manager.stop();
      await recorder.flush();
      await hosting.close();
      await kube.close();
    },
  };
}

/**
 * The Secret cache and who reads what: only the Secrets berth's resources read (and those still
 * carrying its finalizer) are read and kept; the others are seen as metadata passing by.
 */
function secretUsers(
  informers: InformerSet,
  api: { client: KubeClient; logger: Logger; metrics: WatchMetrics },
  config: OperatorConfig,
  credentials: CredentialSettings,
): SecretUsers {
  const scope = config.namespaces.length === 0 ? [] : [...config.namespaces];
  // The default credentials Secret may live outside the watched namespaces.
  if (scope.length > 0 && config.defaultCredentials !== undefined)
    scope.push(config.defaultCredentials.namespace);
  const cache = informers.use(
    new DemandCache({
      ...api,
      type: secretType,
      namespaces: scope,
      hold: holdsCredentialsFinalizer,
    }),
  );
  const users = new SecretUsers(cache, credentials);
  for (const { type } of controllers) if (type.group === group) users.track(type, informers.get(type));
  return users;
}

/**
 * HTTPS for allowed tokens only, with the mounted certificate (cert-manager's, which Prometheus
 * verifies), else a self-signed one (which it can only skip verifying).
 */
async function metricsSecurity(
  kube: KubeClient,
  mounted: CertificateDirectory | undefined,
  cache?: ReviewCacheOptions,
): Promise<ServerSecurity> {
  const authorize = kubeAuthorizer(kube, cache);
  if (mounted !== undefined) return { tls: mounted, authorize };
  // Loaded only here: the X.509 library stays out of an operator serving plain metrics.
  const { selfSignedCertificate } = await import("../runtime/self-signed.ts");
  return { tls: await selfSignedCertificate([hostname(), "localhost", "127.0.0.1", "::1"]), authorize };
}

async function loadMetricsCertificate(dir: string, logger: Logger): Promise<CertificateDirectory> {
  try {
    return await CertificateDirectory.load(dir, { logger });
  } catch (error) {
    if (!(error instanceof CertificateDirectoryError)) throw error;
    throw new StartupError(
      "metrics_certificate_unusable",
      `--metrics-cert-dir: ${error.message}; mount a kubernetes.io/tls Secret there (tls.crt and tls.key, as cert-manager writes them), or leave the flag out for a self-signed certificate`,
    );
  }
}

/** Every informer synced, or a StartupError naming those that did not within `timeoutMs` (controller-runtime's CacheSyncTimeout). */
async function synced(all: readonly ObjectCache[], timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const waiting = all.filter((i) => !i.hasSynced()).map((i) => i.type.plural);
      reject(
        new StartupError(
          "caches_not_synced",
          `the caches of ${waiting.join(", ")} did not sync within ${Math.round(timeoutMs / 1000)}s; the warnings above say why (often RBAC: kubectl auth can-i list ${waiting[0] ?? "secrets"} --as=<the operator's service account>)`,
        ),
      );
    }, timeoutMs);
    timer.unref();
  });
  try {
    await Promise.race([Promise.all(all.map((i) => i.waitForSync())), expired]);
  } finally {
    clearTimeout(timer);
  }
}
