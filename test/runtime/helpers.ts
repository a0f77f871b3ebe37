import {
  ApiextensionsV1Api,
  CustomObjectsApi,
  type KubeConfig,
  type V1CustomResourceDefinition,
} from "@kubernetes/client-node";
import { Registry } from "prom-client";
import { KubeClient } from "../../src/runtime/kube-client.ts";
import type { KubeObject, ResourceType } from "../../src/runtime/object.ts";
import { createLogger } from "../../src/telemetry/logger.ts";
import { createMetrics, type Metrics } from "../../src/telemetry/metrics.ts";

/** A small test CRD: the runtime works on any type, so its tests use their own. */
export const widgetType: ResourceType = {
  group: "runtime.berth.dev",
  version: "v1",
  plural: "widgets",
  kind: "Widget",
};

const widgetCrd: V1CustomResourceDefinition = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: `widgets.${widgetType.group}` },
  spec: {
    group: widgetType.group,
    scope: "Namespaced",
    names: { plural: "widgets", singular: "widget", kind: "Widget", listKind: "WidgetList" },
    versions: [
      {
        name: "v1",
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: { openAPIV3Schema: { type: "object", x_kubernetes_preserve_unknown_fields: true } },
      },
    ],
  },
};

export async function installWidgetCrd(config: KubeConfig): Promise<void> {
  const api = config.makeApiClient(ApiextensionsV1Api);
  await api.createCustomResourceDefinition({ body: widgetCrd }).catch((error: { code?: number }) => {
    if (error.code !== 409) throw error;
  });
  await until(async () => {
    const crd = await api.readCustomResourceDefinition({ name: widgetCrd.metadata?.name ?? "" });
    return crd.status?.conditions?.some((c) => c.type === "Established" && c.status === "True") ?? false;
  }, 20_000);
}

/** An independent client (client-node's) for setting up and checking the server's state. */
export function widgets(config: KubeConfig) {
  const api = config.makeApiClient(CustomObjectsApi);
  const base = { group: widgetType.group, version: widgetType.version, plural: widgetType.plural };
  return {
    create: (
      namespace: string,
      name: string,
      spec: Record<string, unknown> = {},
      labels?: Record<string, string>,
    ) =>
      api.createNamespacedCustomObject({
        ...base,
        namespace,
        body: { apiVersion: "runtime.berth.dev/v1", kind: "Widget", metadata: { name, labels }, spec },
      }) as Promise<KubeObject>,
    /** A JSON patch (client-node's default patch type). */
    patch: (namespace: string, name: string, operations: object[]) =>
      api.patchNamespacedCustomObject({ ...base, namespace, name, body: operations }) as Promise<KubeObject>,
    remove: (namespace: string, name: string) =>
      api.deleteNamespacedCustomObject({ ...base, namespace, name }),
    get: (namespace: string, name: string) =>
      api.getNamespacedCustomObject({ ...base, namespace, name }) as Promise<KubeObject>,
    /** `namespace/name@resourceVersion` of every widget in the namespace, sorted. */
    async state(namespace: string): Promise<string[]> {
      const list = (await api.listNamespacedCustomObject({ ...base, namespace })) as { items: KubeObject[] };
      return versions(list.items);
    },
  };
}

/** `namespace/name@resourceVersion`, sorted: what "the store equals the server" compares. */
export function versions(objects: readonly KubeObject[], namespace?: string): string[] {
  return objects
    .filter((o) => namespace === undefined || o.metadata.namespace === namespace)
    .map((o) => `${o.metadata.namespace}/${o.metadata.name}@${o.metadata.resourceVersion}`)
    .sort();
}

export interface RuntimeKit {
  client: KubeClient;
  metrics: Metrics;
  logger: ReturnType<typeof createLogger>;
}

export function runtimeKit(config: KubeConfig): RuntimeKit {
  return {
    client: new KubeClient(config),
    metrics: createMetrics(new Registry()),
    logger: createLogger({ level: process.env.BERTH_TEST_LOG ?? "silent" }),
  };
}

export async function counterValue(metrics: Metrics, name: string, labels: Record<string, string> = {}) {
  const values = (await metrics.registry.getSingleMetric(name)?.get())?.values ?? [];
  return values
    .filter((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l))
    .reduce((sum, v) => sum + v.value, 0);
}

export async function until(
  condition: () => boolean | Promise<boolean>,
  timeoutMs = 10_000,
  what = "condition",
) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`${what} not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
