import { setTimeout as sleep } from "node:timers/promises";
import { z } from "zod";
import { group, kinds, version } from "../../api/index.ts";
import { isKubeError, type KubeClient } from "../../runtime/index.ts";
import { describeManaged, listManaged, type Managed } from "./inventory.ts";

/** berth could not finish removing itself: what is left and what to check. */
export class UninstallError extends Error {
  readonly code: "resources_left" | "crds_left";

  constructor(code: UninstallError["code"], message: string) {
    super(message);
    this.code = code;
  }
}

export interface UninstallOptions {
  /** Delete every resource first (the operator deletes what each manages), then remove berth. */
  deleteExternal: boolean;
  /** How long each wait (resources gone, CRDs gone) may take. */
  timeoutMs: number;
  /** Between two looks at what is left. */
  pollMs?: number;
  say(line: string): void;
}

export interface UninstallReport {
  /** Every resource there was, with what it managed at the service. */
  resources: Managed[];
  /** The operator's objects removed, as `Kind namespace/name`. */
  removed: string[];
}

const crdNames = kinds.map((kind) => `${kind.names.plural}.${group}`);
const crdPath = (name: string) => `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`;

async function deleteIgnoringGone(kube: KubeClient, path: string): Promise<void> {
  try {
    await kube.call("DELETE", path, { body: { propagationPolicy: "Background" } });
  } catch (error) {
    if (!isKubeError(error, "not_found")) throw error;
  }
}

/** Looks again every `pollMs` until `left` finds nothing, or the timeout; returns what is left. */
async function waitUntilNone<T>(left: () => Promise<T[]>, options: UninstallOptions): Promise<T[]> {
  const deadline = Date.now() + options.timeoutMs;
  let current = await left();
  while (current.length > 0 && Date.now() < deadline) {
    await sleep(options.pollMs ?? 1000);
    current = await left();
  }
  return current;
}

async function crdsLeft(kube: KubeClient): Promise<string[]> {
  const left: string[] = [];
  for (const name of crdNames) {
    try {
      await kube.call("GET", crdPath(name));
      left.push(name);
    } catch (error) {
      if (!isKubeError(error, "not_found")) throw error;
    }
  }
  return left;
}

const operatorMissing =
  "they still hold berth's finalizer: is the operator running? (kubectl get deploy -A -l app.kubernetes.io/part-of=berth)";

/** --delete-external: each resource deleted while the operator runs, which deletes what it manages. */
async function deleteResources(kube: KubeClient, resources: Managed[], options: UninstallOptions) {
  options.say(
    `deleting ${resources.length} resources; the operator deletes what each manages at the service`,
  );
  for (const resource of resources) {
    await deleteIgnoringGone(
      kube,
      `/apis/${group}/${version}/namespaces/${resource.namespace}/${resource.plural}/${resource.name}`,
    );
  }
  const left = await waitUntilNone(() => listManaged(kube), options);
  if (left.length > 0) {
    const names = left.map(describeManaged).join(", ");
    throw new UninstallError(
      "resources_left",
      `${left.length} resources are not gone after ${options.timeoutMs / 1000} s (${names}): ${operatorMissing}; \`kubectl describe\` says why (a Stalled reason); nothing was removed yet`,
    );
  }
}

/** The CRDs deleted while the operator runs: it releases each resource left without calls. */
async function deleteCrds(kube: KubeClient, options: UninstallOptions) {
  options.say("deleting the berth CRDs; the operator releases each resource left without calls");
  for (const name of crdNames) await deleteIgnoringGone(kube, crdPath(name));
  const left = await waitUntilNone(() => crdsLeft(kube), options);
  if (left.length === 0) return;
  const held = (await listManaged(kube)).filter((r) => r.held).map(describeManaged);
  throw new UninstallError(
    "crds_left",
    `the CRDs ${left.join(", ")} are not gone after ${options.timeoutMs / 1000} s${held.length > 0 ? `: ${held.length} resources (${held.join(", ")}) ${operatorMissing}` : ""}`,
  );
}

/** The operator's objects, as both installs label them; its Namespace (with your Secret) stays. */
const operatorKinds = [
  { kind: "Deployment", path: "/apis/apps/v1", plural: "deployments" },
  { kind: "PodDisruptionBudget", path: "/apis/policy/v1", plural: "poddisruptionbudgets" },
  { kind: "Service", path: "/api/v1", plural: "services" },
  { kind: "ConfigMap", path: "/api/v1", plural: "configmaps" },
  { kind: "ServiceMonitor", path: "/apis/monitoring.coreos.com/v1", plural: "servicemonitors" },
  { kind: "PrometheusRule", path: "/apis/monitoring.coreos.com/v1", plural: "prometheusrules" },
  { kind: "RoleBinding", path: "/apis/rbac.authorization.k8s.io/v1", plural: "rolebindings" },
  { kind: "Role", path: "/apis/rbac.authorization.k8s.io/v1", plural: "roles" },
  { kind: "ClusterRoleBinding", path: "/apis/rbac.authorization.k8s.io/v1", plural: "clusterrolebindings" },
  { kind: "ClusterRole", path: "/apis/rbac.authorization.k8s.io/v1", plural: "clusterroles" },
  { kind: "ServiceAccount", path: "/api/v1", plural: "serviceaccounts" },
] as const;

const labelledSchema = z.object({
  items: z.array(z.object({ metadata: z.object({ name: z.string(), namespace: z.string().optional() }) })),
});

/** Deletes the operator (Deployment first, so nothing reconciles without its roles), then the rest. */
async function removeOperator(kube: KubeClient, options: UninstallOptions): Promise<string[]> {
  options.say("removing the operator: objects labelled app.kubernetes.io/part-of=berth");
  const removed: string[] = [];
  for (const type of operatorKinds) {
    let list: z.infer<typeof labelledSchema>;
    try {
      const query = { labelSelector: "app.kubernetes.io/part-of=berth" };
      list = labelledSchema.parse(await kube.call("GET", `${type.path}/${type.plural}`, { query }));
    } catch (error) {
      if (isKubeError(error, "not_found")) continue; // e.g. no Prometheus Operator
      throw error;
    }
    for (const { metadata } of list.items) {
      const scope = metadata.namespace === undefined ? "" : `/namespaces/${metadata.namespace}`;
      await deleteIgnoringGone(kube, `${type.path}${scope}/${type.plural}/${metadata.name}`);
      removed.push(
        `${type.kind} ${metadata.namespace === undefined ? "" : `${metadata.namespace}/`}${metadata.name}`,
      );
    }
  }
  return removed;
}

/**
 * Removes berth in the order that never deletes what it managed by accident: (with
 * `deleteExternal`, every resource deleted first and waited for), the CRDs deleted while the
 * operator runs (it releases each resource left without calls) and waited for, then the operator.
 */
export async function uninstall(kube: KubeClient, options: UninstallOptions): Promise<UninstallReport> {
  const resources = await listManaged(kube);
  const namespaces = new Set(resources.map((r) => r.namespace));
  options.say(`found ${resources.length} berth resources in ${namespaces.size} namespaces`);
  if (options.deleteExternal && resources.length > 0) await deleteResources(kube, resources, options);
  await deleteCrds(kube, options);
  const removed = await removeOperator(kube, options);
  return { resources, removed };
}
