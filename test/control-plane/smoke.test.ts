import { execFile } from "node:child_process";
import { promisify } from "node:util";
import {
  ApiextensionsV1Api,
  CustomObjectsApi,
  type KubeConfig,
  type V1CustomResourceDefinition,
  Watch,
} from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { kubeConfig, kubeconfigPath, useNamespace } from "../support/kube.ts";

const run = promisify(execFile);
const group = "smoke.berth.dev";

const widgetCrd: V1CustomResourceDefinition = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: `widgets.${group}` },
  spec: {
    group,
    scope: "Namespaced",
    names: { plural: "widgets", singular: "widget", kind: "Widget", listKind: "WidgetList" },
    versions: [
      {
        name: "v1",
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: "object",
            properties: { spec: { type: "object", properties: { size: { type: "integer" } } } },
          },
        },
      },
    ],
  },
};

async function installCrd(): Promise<void> {
  const api = kubeConfig().makeApiClient(ApiextensionsV1Api);
  await api.createCustomResourceDefinition({ body: widgetCrd }).catch((error: { code?: number }) => {
    if (error.code !== 409) throw error;
  });
  for (let attempt = 0; attempt < 100; attempt++) {
    const crd = await api.readCustomResourceDefinition({ name: `widgets.${group}` });
    if (crd.status?.conditions?.some((c) => c.type === "Established" && c.status === "True")) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error("CRD never became Established");
}

type WatchHandler = (type: string, object: { metadata?: { name?: string } }) => void;

/** Starts a watch, retrying while the apiserver's watch cache for a new CRD still answers 429. */
async function startWatch(config: KubeConfig, path: string, handler: WatchHandler): Promise<AbortController> {
  for (let attempt = 0; ; attempt++) {
    // Watch reports a refused request through the done callback before it resolves.
    let refused: unknown;
    const controller = await new Watch(config).watch(path, {}, handler, (error: unknown) => {
      refused ??= error;
    });
    if (!refused) return controller;
    if ((refused as { statusCode?: number }).statusCode !== 429 || attempt > 50) throw refused;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe("local control plane", () => {
  const namespace = useNamespace("smoke");

  it("serves namespaces, CRDs, custom resources, watches and kubectl", async () => {
    await installCrd();
    const config = kubeConfig();
    const objects = config.makeApiClient(CustomObjectsApi);

    const seen: string[] = [];
    let resolveAdded: () => void = () => undefined;
    const added = new Promise<void>((resolve) => {
      resolveAdded = resolve;
    });
    const request = await startWatch(
      config,
      `/apis/${group}/v1/namespaces/${namespace.name}/widgets`,
      (type, object) => {
        seen.push(`${type} ${object.metadata?.name}`);
        if (type === "ADDED") resolveAdded();
      },
    );

    await objects.createNamespacedCustomObject({
      group,
      version: "v1",
      namespace: namespace.name,
      plural: "widgets",
      body: { apiVersion: `${group}/v1`, kind: "Widget", metadata: { name: "first" }, spec: { size: 3 } },
    });
    await added;
    request.abort();
    expect(seen).toContain("ADDED first");

    const { stdout } = await run("kubectl", [
      "--kubeconfig",
      kubeconfigPath(),
      "get",
      // Fully qualified: other test files install their own `widgets` in other groups.
      `widgets.${group}`,
      "-n",
      namespace.name,
      "-o",
      "jsonpath={.items[*].spec.size}",
    ]);
    expect(stdout).toBe("3");
  });

  it("enforces RBAC: an unbound service account cannot list namespaces", async () => {
    const { stdout } = await run("kubectl", [
      "--kubeconfig",
      kubeconfigPath(),
      "auth",
      "can-i",
      "list",
      "namespaces",
      `--as=system:serviceaccount:${namespace.name}:nobody`,
    ]).catch((error: { stdout: string }) => ({ stdout: error.stdout }));
    expect(stdout.trim()).toBe("no");
  });
});
