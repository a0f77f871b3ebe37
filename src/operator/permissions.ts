import { group, kinds } from "../api/index.ts";

/**
 * Every Kubernetes API call the operator makes, as RBAC rules: the single source of
 * `deploy/base/rbac.yaml` (`npm run generate`). A call the operator starts making needs a row
 * here; a row nothing uses any more must go, so the installed role stays least-privilege.
 */
export interface Permission {
  apiGroups: readonly string[];
  resources: readonly string[];
  verbs: readonly string[];
  /** Only these objects (e.g. the operator's own Lease); all of them when absent. */
  resourceNames?: readonly string[];
  /**
   * `watched`: objects in the namespaces the operator watches (a ClusterRole, or a Role in the
   * namespaced install); `operator-namespace`: only its own namespace (a Role); `cluster`:
   * cluster-scoped APIs, always a ClusterRole.
   */
  scope: "watched" | "operator-namespace" | "cluster";
  /** Only for HTTPS metrics (`--metrics-secure`): the chart leaves it out otherwise. */
  metricsOnly?: true;
  /** Why the operator needs it; written beside the rule in the generated manifest. */
  why: string;
}

const plurals = kinds.map((kind) => kind.names.plural);

/** The leader election Lease of an unsharded operator and of the default shard (see src/operator/shard.ts). */
export const leaseName = "berth-operator";

export const permissions: readonly Permission[] = [
  {
    apiGroups: [group],
    resources: plurals,
    verbs: ["get", "list", "watch", "patch", "update"],
    scope: "watched",
    why: "watch the berth resources it reconciles and add or remove its finalizer",
  },
  {
    apiGroups: [group],
    resources: plurals.map((plural) => `${plural}/status`),
    verbs: ["get", "patch", "update"],
    scope: "watched",
    why: "write conditions, external IDs and progress into status",
  },
  {
    apiGroups: [group],
    resources: plurals.map((plural) => `${plural}/finalizers`),
    verbs: ["update"],
    scope: "watched",
    why: "set finalizers where OwnerReferencesPermissionEnforcement is enabled",
  },
  {
    apiGroups: [""],
    resources: ["secrets"],
    verbs: ["get", "list", "watch", "patch"],
    scope: "watched",
    why:
      "get: read, one by one, only the Secrets berth's resources name (credentials, valueFrom env); " +
      "list (one item's metadata, for a starting version) and watch (metadata only): learn when one of " +
      "those changes, without reading or keeping any other Secret; patch: keep a finalizer on a " +
      "credentials Secret while resources depend on it",
  },
  {
    apiGroups: [""],
    resources: ["configmaps"],
    verbs: ["get", "create", "update", "delete"],
    scope: "watched",
    why:
      "write the ConfigMap spec.outputs names (read first: never one it did not create) and delete its old one " +
      "when the name changes; no list or watch",
  },
  {
    apiGroups: ["events.k8s.io"],
    resources: ["events"],
    verbs: ["create", "patch"],
    scope: "watched",
    why: "record events on the resources it reconciles, and count their repeats",
  },
  {
    apiGroups: ["coordination.k8s.io"],
    resources: ["leases"],
    verbs: ["get", "update"],
    resourceNames: [leaseName],
    scope: "operator-namespace",
    why: "leader election: one replica reconciles at a time (a shard adds its own Lease's name)",
  },
  {
    apiGroups: ["coordination.k8s.io"],
    resources: ["leases"],
    verbs: ["create"],
    scope: "operator-namespace",
    why:
      "leader election: create the Lease on first start; claims: create the Lease that decides which of two " +
      "resources racing to claim one external object holds it (create cannot be limited by name)",
  },
  {
    apiGroups: ["coordination.k8s.io"],
    resources: ["leases"],
    verbs: ["get", "update"],
    scope: "operator-namespace",
    why:
      "claims: read a claim Lease (berth-claim-<hash of the external object>) and take it over, under the " +
      "resourceVersion read, once its holder let the object go (the names are hashes, so not listable in advance)",
  },
  {
    apiGroups: [""],
    resources: ["namespaces"],
    verbs: ["get", "list", "watch"],
    scope: "cluster",
    why:
      "read the berth.dev/paused, berth.dev/management-policies and berth.dev/deletion-policy annotations of the " +
      "namespaces it reconciles in, and watch them so lifting a pause resumes at once (Namespaces are cluster-scoped: a ClusterRole even in the namespaced install)",
  },
  {
    apiGroups: ["apiextensions.k8s.io"],
    resources: ["customresourcedefinitions"],
    verbs: ["get"],
    resourceNames: plurals.map((plural) => `${plural}.${group}`),
    scope: "cluster",
    why: "at start, read the berth CRDs' revision label and refuse CRDs older than this operator needs; when a resource is being deleted, read whether its CRD is too (berth is being removed: release it without calls)",
  },
  {
    apiGroups: ["authentication.k8s.io"],
    resources: ["tokenreviews"],
    verbs: ["create"],
    scope: "cluster",
    metricsOnly: true,
    why: "secure metrics: check the bearer token of a /metrics request",
  },
  {
    apiGroups: ["authorization.k8s.io"],
    resources: ["subjectaccessreviews"],
    verbs: ["create"],
    scope: "cluster",
    metricsOnly: true,
    why: "secure metrics: check that the token's user may get /metrics",
  },
];
