import { readFileSync } from "node:fs";
import { collectDefaultMetrics, Registry } from "prom-client";
import { z } from "zod";
import { type OperatorConfigInput, operatorConfigSchema, startOperator } from "../../operator/index.ts";
import { createLogger } from "../../telemetry/logger.ts";
import { registerBuildInfo } from "../../telemetry/metrics.ts";
import { readBuildInfo } from "../build-info.ts";
import { booleanish, defineCommand } from "../command.ts";
import { untilSignal } from "../signals.ts";

/** The namespace a pod runs in, for its Lease; undefined outside a cluster. */
function podNamespace(): string | undefined {
  try {
    return (
      readFileSync("/var/run/secrets/kubernetes.io/serviceaccount/namespace", "utf8").trim() || undefined
    );
  } catch {
    return undefined;
  }
}

function metricsUrl(address: string | undefined, secure: boolean | undefined): string {
  if (address === undefined) return "off";
  return secure === false ? `http://${address}/metrics` : `https://${address}/metrics (bearer token)`;
}

export const operatorCommand = defineCommand({
  name: "operator",
  summary:
    "run the operator: reconcile Apps, Projects, Grids and ServerOrders against the hosting API, within each namespace's SpendLimit",
  flags: {
    kubeconfig: { description: "kubeconfig file (default: in-cluster, else $KUBECONFIG or ~/.kube/config)" },
    namespace: { description: "namespace to watch (default: all namespaces)", multiple: true },
    "hosting-base-url": {
      description: "hosting API base URL ending in /v1, for credentials Secrets without baseUrl",
    },
    "metrics-addr": { description: 'address of the /metrics server (default ":8080"; empty: off)' },
    "metrics-secure": {
      description:
        "serve /metrics over HTTPS to bearer tokens allowed to get /metrics (TokenReview, SubjectAccessReview); --metrics-secure=false: plain HTTP (default true)",
      type: "boolean",
    },
    "metrics-cert-dir": {
      description:
        "directory with tls.crt and tls.key (a mounted kubernetes.io/tls Secret, e.g. cert-manager's) to serve /metrics with; re-read every 10 s, so a renewed certificate is served without a restart (default: a self-signed certificate made at start)",
    },
    "health-addr": {
      description: 'address of the /healthz and /readyz server (default ":8081"; empty: off)',
    },
    "leader-elect": {
      description:
        "run controllers only while holding the Lease berth-operator (a shard's own: berth-operator-<selector as a name>)",
      type: "boolean",
    },
    "leader-election-namespace": { description: "namespace of the Lease (default: the pod's, else default)" },
    "watch-label-selector": {
      description:
        'reconcile only resources with these labels, e.g. "berth.dev/shard in (shard1)"; the default shard is "!berth.dev/shard" (default: all)',
    },
    concurrency: { description: "reconcile workers per controller (default 32)" },
    "background-reserve": {
      description:
        'share of each hosting rate-limit window that background work (drift checks) leaves to spec changes, new objects and deletions (default "10%")',
    },
    "default-credentials": {
      description:
        "namespace/name of the default credentials Secret; empty disables the fallback (default: none)",
    },
    "drift-interval": { description: 'how often each external object is re-read (default "10m")' },
    "resource-budget-share": {
      description:
        'most of a key\'s rate-limit budget per minute one resource may spend without progress (a new generation, a status it had not reached lately); beyond it, its reconciles wait and a BudgetCapped Warning event is recorded; 0: no cap (default "20%")',
    },
    "shutdown-grace": {
      description:
        'how long a stop waits for reconciles in flight before abandoning their hosting calls; keep it below the pod\'s terminationGracePeriodSeconds (default "20s")',
    },
    "stuck-after": {
      description:
        '/healthz fails (the kubelet restarts the pod) when work waits and a controller\'s workers took or finished no reconcile for this long; it also fails when the event loop is blocked over 5 s (default "5m")',
    },
    "start-timeout": {
      description:
        'how long start-up waits for the API server and for the caches to sync; then it exits with the reason (default "1m")',
    },
    "log-level": { description: "log level: trace, debug, info, warn, error (default info)" },
    paused: {
      description:
        "hold every call that changes something at the service (creates, updates, day-2 requests, deletions) for every resource the operator watches, as the Namespace annotation berth.dev/paused does for one namespace; reads and status go on (default false)",
      type: "boolean",
    },
    "default-management-policies": {
      description:
        'management policies, comma-separated, for resources that set none and whose Namespace has no berth.dev/management-policies annotation, e.g. "Observe" (default "*")',
    },
    "default-deletion-policy": {
      description:
        "Delete or Orphan, for resources that set none and whose Namespace has no berth.dev/deletion-policy annotation (default Delete)",
    },
  },
  config: z
    .object({
      kubeconfig: z.string().min(1).optional(),
      namespace: z.array(z.string()).default([]),
      hostingBaseUrl: z.string().optional(),
      metricsAddr: z.string().optional(),
      metricsSecure: booleanish.default(true),
      metricsCertDir: z.string().optional(),
      healthAddr: z.string().optional(),
      leaderElect: booleanish.default(false),
      leaderElectionNamespace: z.string().optional(),
      watchLabelSelector: z.string().optional(),
      concurrency: z.string().optional(),
      backgroundReserve: z.string().optional(),
      defaultCredentials: z.string().optional(),
      driftInterval: z.string().optional(),
      resourceBudgetShare: z.string().optional(),
      shutdownGrace: z.string().optional(),
      stuckAfter: z.string().optional(),
      startTimeout: z.string().optional(),
      logLevel: z.string().optional(),
      paused: booleanish.default(false),
      defaultManagementPolicies: z.string().optional(),
      defaultDeletionPolicy: z.string().optional(),
    })
    .transform(({ namespace, ...rest }, ctx): OperatorConfigInput => {
      const input = {
        ...rest,
        namespaces: namespace,
        leaderElectionNamespace: rest.leaderElectionNamespace ?? podNamespace(),
      } as OperatorConfigInput;
      const parsed = operatorConfigSchema.safeParse(input);
      if (parsed.success) return input;
      for (const issue of parsed.error.issues) {
        const field = issue.path[0] === "namespaces" ? "namespace" : issue.path[0];
        ctx.addIssue({ code: "custom", path: field === undefined ? [] : [field], message: issue.message });
      }
      return z.NEVER;
    }),
  async run(config, { stdout }) {
    const logger = createLogger({ level: config.logLevel ?? "info" });
    const build = readBuildInfo();
    logger.info(build, "berth operator starting");
    const registry = new Registry();
    collectDefaultMetrics({ register: registry });
    registerBuildInfo(registry, build);
    let lost = false;
    const leadership = Promise.withResolvers<void>();
    const onLeadershipLost = () => {
      lost = true;
      leadership.resolve();
    };
    const operator = await startOperator(config, {
      logger,
      registry,
      onLeadershipLost,
      version: build.version,
    });
    try {
      await operator.ready;
    } catch (error) {
      await operator.stop();
      throw error;
    }
    // Listening before saying it runs: a SIGTERM right after the line must stop it cleanly.
    const stopped = untilSignal(leadership.promise);
    stdout.write(
      `berth operator running (health ${operator.addresses.health ?? "off"}, metrics ${metricsUrl(operator.addresses.metrics, config.metricsSecure)})\n`,
    );
    await stopped;
    await operator.stop();
    stdout.write(lost ? "leadership lost; operator stopped\n" : "operator stopped\n");
    return lost ? 1 : 0;
  },
});
