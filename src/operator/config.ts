import { z } from "zod";
import { parsePolicyList, supportedPoliciesMessage } from "../api/policies.ts";
import { LabelSelectorError, parseLabelSelector } from "../runtime/index.ts";

const units: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** A duration such as `10m`, `30s`, `1h30m` or `500ms`, in milliseconds. */
export const duration = z
  .string()
  .regex(/^(\d+(\.\d+)?(ms|s|m|h))+$/, 'must be a duration such as "10m", "30s" or "1h"')
  .transform((text) => {
    let total = 0;
    for (const [, amount, unit] of text.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)) {
      total += Number(amount) * (units[unit ?? "ms"] ?? 1);
    }
    return Math.round(total);
  })
  .refine((ms) => ms >= 1000, "must be at least 1s");

/** `namespace/name` of a Secret; empty disables the fallback. */
const secretRef = z
  .string()
  .regex(/^([a-z0-9]([-a-z0-9]*[a-z0-9])?\/[-.a-z0-9]+)?$/, 'must be "namespace/name" of a Secret, or empty')
  .transform((text) => {
    if (text === "") return undefined;
    const [namespace = "", name = ""] = text.split("/");
    return { namespace, name };
  });

/** A share as a percentage, "10" or "10%", from 0 to 90; as a fraction. */
const percentage = z
  .string()
  .regex(/^\d+(\.\d+)?%?$/, 'must be a percentage such as "10%"')
  .transform((text) => Number(text.replace("%", "")) / 100)
  .refine((share) => share <= 0.9, "must be at most 90%");

/** A label selector as kubectl writes it; empty selects everything. */
const labelSelector = z.string().superRefine((text, ctx) => {
  try {
    parseLabelSelector(text);
  } catch (error) {
    if (!(error instanceof LabelSelectorError)) throw error;
    ctx.addIssue({ code: "custom", message: error.message });
  }
});

const operatorSettings = z.object({
  /** Path of a kubeconfig; default: in-cluster, else $KUBECONFIG or ~/.kube/config. */
  kubeconfig: z.string().min(1).optional(),
  /** Namespaces to watch; all when empty. */
  namespaces: z
    .array(z.string().regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, "must be a namespace name"))
    .default([]),
  hostingBaseUrl: z
    .url({ protocol: /^https?$/, message: "must be an http(s) URL such as https://api.example.com/v1" })
    .optional(),
  /** `host:port` or `:port`; empty turns the server off. */
  metricsAddr: z.string().default(":8080"),
  /** HTTPS, and only for bearer tokens allowed to `get` the non-resource URL /metrics. */
  metricsSecure: z.boolean().default(true),
  /**
   * A directory with `tls.crt` and `tls.key` (a mounted kubernetes.io/tls Secret) to serve
   * /metrics with, re-read as they are renewed; a self-signed certificate made at start otherwise.
   */
  metricsCertDir: z
    .string()
    .optional()
    .transform((dir) => (dir === "" ? undefined : dir)),
  healthAddr: z.string().default(":8081"),
  leaderElect: z.boolean().default(false),
  leaderElectionNamespace: z.string().min(1).default("default"),
  /** Reconcile only the resources this selects (a shard); empty: all of them. */
  watchLabelSelector: labelSelector.default(""),
  /**
   * Workers per controller. Reconciles mostly wait (a create at the service takes seconds), and the
   * hosting budget, not the workers, bounds the calls: enough of them that waiting never serializes.
   */
  concurrency: z.coerce
    .number({ message: "must be a whole number from 1 to 256" })
    .int("must be a whole number from 1 to 256")
    .min(1, "must be a whole number from 1 to 256")
    .max(256, "must be a whole number from 1 to 256")
    .default(32),
  /** Share of each rate-limit window that background work (drift checks) leaves to user work. */
  backgroundReserve: percentage.prefault("10%"),
  defaultCredentials: secretRef.prefault(""),
  driftInterval: duration.prefault("10m"),
  /**
   * The most of a key's rate-limit budget per window (a minute at the service) one resource may
   * spend without progress; beyond it, its reconciles wait. 0 turns the cap off.
   */
  resourceBudgetShare: percentage.prefault("20%"),
  /** How long a stop lets reconciles in flight finish before abandoning their hosting calls. */
  shutdownGrace: duration.prefault("20s"),
  /** /healthz fails when a controller's keys wait and its workers took or finished nothing for this long. */
  stuckAfter: duration.prefault("5m"),
  /** How long start-up waits for the API server and for the caches to sync before it gives up. */
  startTimeout: duration.prefault("1m"),
  logLevel: z.enum(["trace", "debug", "info", "warn", "error", "silent"]).default("info"),
  /**
   * Hold every call that changes something at the service, for everything the operator watches
   * (as the Namespace annotation berth.dev/paused does for one namespace); reads and status go on.
   */
  paused: z.boolean().default(false),
  /** Management policies for resources that set none and whose Namespace gives none (default ["*"]). */
  defaultManagementPolicies: z
    .string()
    .default("")
    .refine((text) => text === "" || parsePolicyList(text) !== undefined, {
      message: supportedPoliciesMessage,
    })
    .transform((text) => (text === "" ? undefined : parsePolicyList(text))),
  /** Deletion policy for resources that set none and whose Namespace gives none (default Delete). */
  defaultDeletionPolicy: z.enum(["Delete", "Orphan"]).optional(),
});

/** The operator's settings, as `berth operator` flags give them (see docs/operator.md). */
export const operatorConfigSchema = operatorSettings.refine(
  (config) => config.metricsCertDir === undefined || config.metricsSecure,
  {
    path: ["metricsCertDir"],
    message:
      "needs --metrics-secure: with --metrics-secure=false /metrics is plain HTTP and the certificate would go unused",
  },
);

export type OperatorConfigInput = z.input<typeof operatorConfigSchema>;
export type OperatorConfig = z.output<typeof operatorConfigSchema>;
