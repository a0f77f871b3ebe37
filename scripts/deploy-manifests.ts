/**
 * The generated parts of deploy/: RBAC from src/operator/permissions.ts, a kustomize copy of the
 * CRDs (kustomize refuses files outside a kustomization's folder), and the Argo CD health check
 * wired into an argocd-cm patch. `npm run generate` writes them; test/deploy fails on drift.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Document, isMap, isSeq, stringify } from "yaml";
import { generateCrdFiles } from "../src/api/crd/files.ts";
import { group, kinds } from "../src/api/index.ts";
import { type Permission, permissions } from "../src/operator/permissions.ts";
import { generateHelmFiles } from "./deploy-helm.ts";

export const deployDirectory = fileURLToPath(new URL("../deploy/", import.meta.url));
export const operatorNamespace = "berth-system";
export const serviceAccount = "berth-operator";

export interface DeployFile {
  /** Relative to deploy/. */
  path: string;
  content: string;
}

const labels = { "app.kubernetes.io/name": "berth", "app.kubernetes.io/part-of": "berth" };

function header(source: string): string {
  return `# Generated from ${source} by \`npm run generate\`. Do not edit.\n`;
}

export function generateDeployFiles(): DeployFile[] {
  return [
    rbacFile(),
    namespacedRbacFile(),
    ...crdFiles(),
    argocdPatchFile(),
    ...generateHelmFiles(deployDirectory),
  ];
}

const subjects = [{ kind: "ServiceAccount", name: serviceAccount, namespace: operatorNamespace }];

/** Cluster-wide: the operator reconciles every namespace (or those --namespace names). */
function rbacFile(): DeployFile {
  return rbacDocuments("base/rbac.yaml", [
    role("ClusterRole", "berth-operator", [...rulesIn("watched"), ...rulesIn("cluster")]),
    binding("ClusterRoleBinding", "berth-operator"),
    ...leaderElectionRole(),
    metricsReader(),
    ...userRoles(),
  ]);
}

/** overlays/namespaced: a Role in the operator's namespace instead of the ClusterRole. */
function namespacedRbacFile(): DeployFile {
  return rbacDocuments("overlays/namespaced/rbac.yaml", [
    role("Role", "berth-operator", rulesIn("watched")),
    binding("RoleBinding", "berth-operator"),
    ...leaderElectionRole(),
    // Reading the CRDs, TokenReviews and SubjectAccessReviews are cluster-scoped: no Role can grant them.
    role("ClusterRole", "berth-operator-cluster", rulesIn("cluster")),
    binding("ClusterRoleBinding", "berth-operator-cluster"),
    metricsReader(),
  ]);
}

function rbacDocuments(path: string, documents: Document[]): DeployFile {
  return {
    path,
    content:
      header("src/operator/permissions.ts") +
      documents.map((d) => d.toString({ lineWidth: 0 })).join("---\n"),
  };
}

function leaderElectionRole(): Document[] {
  return [
    role("Role", "berth-leader-election", rulesIn("operator-namespace")),
    binding("RoleBinding", "berth-leader-election"),
  ];
}

type RuleWithWhy = Pick<Permission, "apiGroups" | "resources" | "verbs" | "resourceNames" | "why">;

function rulesIn(scope: Permission["scope"]): RuleWithWhy[] {
  return permissions
    .filter((permission) => permission.scope === scope)
    .map(({ apiGroups, resources, resourceNames, verbs, why }) => ({
      apiGroups,
      resources,
      ...(resourceNames === undefined ? {} : { resourceNames }),
      verbs,
      why,
    }));
}

/** Each rule's `why` becomes a comment above it rather than a field the apiserver would drop. */
function role(kind: "ClusterRole" | "Role", name: string, rules: RuleWithWhy[]): Document {
  const namespace = kind === "Role" ? { namespace: operatorNamespace } : {};
  const document = new Document({
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind,
    metadata: { name, ...namespace, labels },
    rules,
  });
  const items = document.get("rules");
  if (!isSeq(items)) throw new Error("rules did not render as a list");
  for (const item of items.items) {
    if (!isMap(item)) continue;
    item.commentBefore = ` ${String(item.get("why"))}`;
    item.delete("why");
  }
  return document;
}

function binding(kind: "ClusterRoleBinding" | "RoleBinding", name: string): Document {
  const namespace = kind === "RoleBinding" ? { namespace: operatorNamespace } : {};
  return new Document({
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind,
    metadata: { name, ...namespace, labels },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: kind.replace("Binding", ""), name },
    subjects,
  });
}

/** Bind it to whoever scrapes /metrics (the Prometheus Operator's own roles already allow it). */
function metricsReader(): Document {
  return new Document({
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRole",
    metadata: { name: "berth-metrics-reader", labels },
    rules: [{ nonResourceURLs: ["/metrics"], verbs: ["get"] }],
  });
}

/** Aggregated into the built-in edit/admin and view roles, so namespace users can manage berth resources. */
function userRoles(): Document[] {
  const all = kinds.map((kind) => kind.names.plural);
  // Admin-only kinds (SpendLimit) are readable by all but written by admins, like a ResourceQuota.
  const editable = kinds.filter((kind) => kind.adminOnly !== true).map((kind) => kind.names.plural);
  const role = (name: string, aggregateTo: string[], verbs: string[], resources: string[]) =>
    new Document({
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRole",
      metadata: {
        name,
        labels: {
          ...labels,
          ...Object.fromEntries(
            aggregateTo.map((to) => [`rbac.authorization.k8s.io/aggregate-to-${to}`, "true"]),
          ),
        },
      },
      rules: [{ apiGroups: [group], resources, verbs }],
    });
  return [
    role(
      "berth-edit",
      ["admin", "edit"],
      ["get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"],
      editable,
    ),
    role("berth-view", ["view"], ["get", "list", "watch"], all),
  ];
}

function crdFiles(): DeployFile[] {
  const files = generateCrdFiles();
  const kustomization = {
    apiVersion: "kustomize.config.k8s.io/v1beta1",
    kind: "Kustomization",
    resources: files.map((file) => file.fileName),
  };
  return [
    ...files.map((file) => ({ path: `crds/${file.fileName}`, content: file.content })),
    {
      path: "crds/kustomization.yaml",
      content: `${header("src/api")}# The CRDs alone: \`kubectl apply -k deploy/crds\`.\n${stringify(kustomization)}`,
    },
  ];
}

export const healthScriptPath = fileURLToPath(new URL("../deploy/argocd/health.lua", import.meta.url));

/** argocd-cm keys Argo CD reads a custom health check from, one per berth kind. */
export function healthKeys(): string[] {
  return kinds.map((kind) => `resource.customizations.health.${group}_${kind.names.kind}`);
}

function argocdPatchFile(): DeployFile {
  const script = readFileSync(healthScriptPath, "utf8");
  const configMap = {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "argocd-cm", namespace: "argocd" },
    data: Object.fromEntries(healthKeys().map((key) => [key, script])),
  };
  return {
    path: "argocd/argocd-cm-patch.yaml",
    content:
      header("deploy/argocd/health.lua") + stringify(configMap, { lineWidth: 0, blockQuote: "literal" }),
  };
}
