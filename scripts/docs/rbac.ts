/**
 * The RBAC tables of docs/operations/install.md, read from the generated manifests
 * (deploy/base/rbac.yaml and deploy/overlays/namespaced/rbac.yaml, themselves generated from
 * src/operator/permissions.ts): every rule of every role, with the reason written beside it.
 */
import { fileURLToPath } from "node:url";
import { isMap, isNode, isSeq, parseAllDocuments } from "yaml";
import { generateDeployFiles } from "../deploy-manifests.ts";
import { code, table } from "./markdown.ts";
import type { Section } from "./sections.ts";

export const installPagePath = fileURLToPath(new URL("../../docs/operations/install.md", import.meta.url));

interface Rule {
  role: string;
  what: string;
  verbs: string;
  only: string;
  why: string;
}

/** Every rule of every Role and ClusterRole in one generated manifest, in its order. */
export function rulesOf(manifest: string): Rule[] {
  const rules: Rule[] = [];
  for (const document of parseAllDocuments(manifest)) {
    const kind = String(document.get("kind"));
    if (kind !== "Role" && kind !== "ClusterRole") continue;
    const name = String(document.getIn(["metadata", "name"]));
    const namespace = document.getIn(["metadata", "namespace"]);
    const role = `${kind} ${code(name)}${namespace === undefined ? "" : ` in ${code(String(namespace))}`}`;
    const items = document.get("rules");
    if (!isSeq(items)) throw new Error(`${kind} ${name} has no rules`);
    // The parser gives the first item's comment to the list.
    const comments = items.items.map(
      (item, i) =>
        (i === 0 ? items.commentBefore : undefined) ?? (isNode(item) ? item.commentBefore : undefined),
    );
    for (const [i, item] of items.items.entries()) {
      if (!isMap(item)) continue;
      const rule = item.toJSON() as {
        apiGroups?: string[];
        resources?: string[];
        nonResourceURLs?: string[];
        verbs: string[];
        resourceNames?: string[];
      };
      rules.push({
        role,
        what: what(rule),
        verbs: rule.verbs.join(" "),
        only: (rule.resourceNames ?? []).map(code).join(", "),
        why: (comments[i] ?? aggregation(document.toJSON())).trim(),
      });
    }
  }
  return rules;
}

function what(rule: { apiGroups?: string[]; resources?: string[]; nonResourceURLs?: string[] }): string {
  if (rule.nonResourceURLs !== undefined) return `the URL ${rule.nonResourceURLs.map(code).join(", ")}`;
  const groups = (rule.apiGroups ?? []).map((g) => (g === "" ? "core" : g)).join(", ");
  return `${(rule.resources ?? []).map(code).join(", ")} (${groups})`;
}

/** A role without a reason comment says what it is for through its aggregation labels. */
function aggregation(role: { metadata: { labels?: Record<string, string> } }): string {
  const into = Object.keys(role.metadata.labels ?? {})
    .filter((label) => label.startsWith("rbac.authorization.k8s.io/aggregate-to-"))
    .map((label) => code(label.slice("rbac.authorization.k8s.io/aggregate-to-".length)));
  return into.length === 0
    ? "bind it to whoever reads the metrics"
    : `aggregated into the built-in ${into.join(", ")} roles`;
}

function manifest(path: string): string {
  const file = generateDeployFiles().find((f) => f.path === path);
  if (file === undefined) throw new Error(`deploy/${path} is not generated`);
  return file.content;
}

function rulesTable(path: string): string {
  return table(
    ["role", "resources (API group)", "verbs", "only these names", "why"],
    rulesOf(manifest(path)).map((r) => [r.role, r.what, r.verbs, r.only, r.why]),
  );
}

export const rbacSections: readonly Section[] = [
  { id: "rbac-cluster", render: () => rulesTable("base/rbac.yaml") },
  { id: "rbac-namespaced", render: () => rulesTable("overlays/namespaced/rbac.yaml") },
];
