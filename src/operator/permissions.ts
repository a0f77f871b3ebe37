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
  /** Cluster-wide (ClusterRole), or only in the operator's own namespace (Role). */
  scope: "cluster" | "operator-namespace";
  /** Why the operator needs it; written beside the rule in the generated manifest. */
  why: string;
}

const plurals = kinds.map((kind) => kind.names.plural);

export const permissions: readonly Permission[] = [
  {
    apiGroups: [group],
    resources: plurals,
    verbs: ["get", "list", "watch", "patch", "update"],
    scope: "cluster",
    why: "watch the berth resources it reconciles and add or remove its finalizer",
  },
  {
    apiGroups: [group],
    resources: plurals.map((plural) => `${plural}/status`),
    verbs: ["get", "patch", "update"],
    scope: "cluster",
    why: "write conditions, external IDs and progress into status",
  },
  {
    apiGroups: [group],
    resources: plurals.map((plural) => `${plural}/finalizers`),
    verbs: ["update"],
    scope: "cluster",
    why: "set finalizers where OwnerReferencesPermissionEnforcement is enabled",
  },
  {
    apiGroups: [""],
    resources: ["secrets"],
    verbs: ["get", "list", "watch"],
    scope: "cluster",
    why: "read hosting API keys (credentialsRef, berth-credentials) and secret env values",
  },
  {
    apiGroups: ["events.k8s.io"],
    resources: ["events"],
    verbs: ["create", "patch"],
    scope: "cluster",
    why: "record events on the resources it reconciles, and count their repeats",
  },
  {
    apiGroups: ["coordination.k8s.io"],
    resources: ["leases"],
    verbs: ["get", "create", "update"],
    scope: "operator-namespace",
    why: "leader election: one replica reconciles at a time",
  },
];
