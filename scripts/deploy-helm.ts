/**
 * The generated parts of the Helm chart deploy/helm/berth, from the sources the kustomize install
 * uses: RBAC from src/operator/permissions.ts, the CRDs, the alerts and the dashboard. The other
 * templates are written by hand; test/deploy/helm.test.ts holds their output to the kustomize one.
 */
import { readFileSync } from "node:fs";
import { Document, isMap, isSeq, parse, stringify } from "yaml";
import { generateCrdFiles } from "../src/api/crd/files.ts";
import { group, kinds } from "../src/api/index.ts";
import { type Permission, permissions } from "../src/operator/permissions.ts";
import type { DeployFile } from "./deploy-manifests.ts";

const chart = "helm/berth";
const header = (source: string) => `# Generated from ${source} by \`npm run generate\`. Do not edit.\n`;
const packageVersion = (
  JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
    version: string;
  }
).version;

export function generateHelmFiles(deployDirectory: string): DeployFile[] {
  const prometheusRule = parse(
    readFileSync(`${deployDirectory}components/prometheus/prometheus-rule.yaml`, "utf8"),
  );
  return [
    { path: `${chart}/Chart.yaml`, content: header("package.json") + stringify(chartYaml()) },
    { path: `${chart}/templates/rbac.yaml`, content: header("src/operator/permissions.ts") + rbacTemplate() },
    { path: `${chart}/templates/crds.yaml`, content: header("src/api") + crdTemplate() },
    {
      path: `${chart}/files/prometheus-rules.yaml`,
      content:
        header("deploy/components/prometheus/prometheus-rule.yaml") +
        stringify({ groups: prometheusRule.spec.groups }, { lineWidth: 0 }),
    },
    {
      path: `${chart}/files/dashboard.json`,
      content: readFileSync(`${deployDirectory}components/grafana/dashboard.json`, "utf8"),
    },
  ];
}

/** "Project, App, Grid, ServerOrder and SpendLimit": every kind, so the chart's description can't leave one out. */
function kindList(): string {
  const names = kinds.map((kind) => kind.names.kind);
  return names.length < 2 ? names.join("") : `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
}

function chartYaml() {
  return {
    apiVersion: "v2",
    name: "berth",
    description: `berth: a Kubernetes operator for the container hosting service (${kindList()} resources)`,
    type: "application",
    version: packageVersion,
    appVersion: packageVersion,
    keywords: ["operator", "hosting"],
  };
}

/**
 * The rules of a scope as YAML list items, each under a comment with its reason; `metrics`: only
 * those for secure metrics (true), or only the others (false).
 */
function rules(scope: Permission["scope"], metrics?: boolean): string {
  const selected = permissions.filter(
    (p) => p.scope === scope && (metrics === undefined || (p.metricsOnly === true) === metrics),
  );
  const document = new Document(
    selected.map(({ apiGroups, resources, resourceNames, verbs }) => ({
      apiGroups,
      resources,
      ...(resourceNames === undefined
        ? {}
        : { resourceNames: resources.includes("leases") ? leases : resourceNames }),
      verbs,
    })),
  );
  if (!isSeq(document.contents)) throw new Error("rules did not render as a list");
  document.contents.items.forEach((item, i) => {
    if (isMap(item)) item.commentBefore = ` ${selected[i]?.why ?? ""}`;
  });
  // A shard's Lease is named after its selector: the chart lists every shard's.
  return document.toString({ lineWidth: 0 }).replaceAll(leases, '{{ include "berth.leaseNames" $ }}');
}

/** Stands in for the Lease names, which the chart computes from its shards. */
const leases = "LEASE_NAMES";

function role(kind: string, name: string, namespace: string | undefined, body: string): string {
  return [
    "---",
    "apiVersion: rbac.authorization.k8s.io/v1",
    `kind: ${kind}`,
    "metadata:",
    `  name: {{ $name }}-${name}`,
    ...(namespace === undefined ? [] : [`  namespace: ${namespace}`]),
    "  labels:",
    '    {{- include "berth.labels" $ | nindent 4 }}',
    body.trimEnd(),
  ].join("\n");
}

function binding(kind: "ClusterRoleBinding" | "RoleBinding", name: string, namespace?: string): string {
  return role(
    kind,
    name,
    namespace,
    [
      "roleRef:",
      "  apiGroup: rbac.authorization.k8s.io",
      `  kind: ${kind.replace("Binding", "")}`,
      `  name: {{ $name }}-${name}`,
      "subjects:",
      "  - kind: ServiceAccount",
      "    name: {{ $name }}-operator",
      "    namespace: {{ $.Release.Namespace }}",
    ].join("\n"),
  );
}

function rbacTemplate(): string {
  const all = kinds.map((kind) => kind.names.plural);
  // Admins write SpendLimits: the edit role a team holds never grants it (as the kustomize install).
  const editable = kinds.filter((kind) => kind.adminOnly !== true).map((kind) => kind.names.plural);
  const userRole = (name: string, aggregateTo: string[], verbs: string[], resources: string[]) =>
    role(
      "ClusterRole",
      name,
      undefined,
      stringify({ rules: [{ apiGroups: [group], resources, verbs }] }),
    ).replace(
      "nindent 4 }}",
      `nindent 4 }}\n${aggregateTo.map((to) => `    rbac.authorization.k8s.io/aggregate-to-${to}: "true"`).join("\n")}`,
    );
  return `{{- $name := include "berth.name" . }}
{{- if .Values.watchNamespaces }}
{{- $namespaces := .Values.watchNamespaces }}
{{- if .Values.defaultCredentials }}{{ $namespaces = append $namespaces .Release.Namespace | uniq }}{{ end }}
{{- range $namespaces }}
${role("Role", "operator", "{{ . }}", `rules:\n${rules("watched")}`)}
${binding("RoleBinding", "operator", "{{ . }}")}
{{- end }}
${role("ClusterRole", "operator-cluster", undefined, `rules:\n${rules("cluster", false)}{{- if .Values.metrics.secure }}\n${rules("cluster", true)}{{- end }}`)}
${binding("ClusterRoleBinding", "operator-cluster")}
{{- else }}
${role("ClusterRole", "operator", undefined, `rules:\n${rules("watched")}${rules("cluster", false)}{{- if .Values.metrics.secure }}\n${rules("cluster", true)}{{- end }}`)}
${binding("ClusterRoleBinding", "operator")}
{{- end }}
{{- if .Values.leaderElection.enabled }}
${role("Role", "leader-election", "{{ $.Release.Namespace }}", `rules:\n${rules("operator-namespace")}`)}
${binding("RoleBinding", "leader-election", "{{ $.Release.Namespace }}")}
{{- end }}
${role("ClusterRole", "metrics-reader", undefined, stringify({ rules: [{ nonResourceURLs: ["/metrics"], verbs: ["get"] }] }))}
{{- if .Values.userRoles.enabled }}
${userRole("edit", ["admin", "edit"], ["get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"], editable)}
${userRole("view", ["view"], ["get", "list", "watch"], all)}
{{- end }}
`;
}

/**
 * The CRDs as a template, not in crds/ (which Helm installs once and never upgrades): `helm upgrade`
 * updates them with the operator. Kept on uninstall, so deleting the release never deletes resources.
 */
function crdTemplate(): string {
  const documents = generateCrdFiles().map((file) => {
    const manifest = parse(file.content) as { metadata: { annotations?: Record<string, string> } };
    manifest.metadata.annotations = { "helm.sh/resource-policy": "keep" };
    return stringify(manifest, { lineWidth: 0, version: "1.1" });
  });
  return `{{- if .Values.crds.install }}\n---\n${documents.join("---\n")}{{- end }}\n`;
}
