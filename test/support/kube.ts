import { randomBytes } from "node:crypto";
import { ApiException, CoreV1Api, KubeConfig } from "@kubernetes/client-node";
import { afterEach, beforeEach, inject } from "vitest";

export function kubeconfigPath(): string {
  return inject("kubeconfigPath");
}

export function kubeConfig(): KubeConfig {
  const config = new KubeConfig();
  config.loadFromFile(kubeconfigPath());
  return config;
}

/**
 * Gives each test a fresh namespace, deleted afterwards. Read `.name` inside the test.
 * (The local control plane runs no namespace controller, so deleted namespaces stay Terminating;
 * names are random so that never matters.)
 */
export function useNamespace(prefix = "t"): { readonly name: string } {
  const current = { name: "" };
  const core = kubeConfig().makeApiClient(CoreV1Api);
  beforeEach(async () => {
    current.name = `${prefix}-${randomBytes(4).toString("hex")}`;
    await core.createNamespace({ body: { metadata: { name: current.name } } });
  });
  afterEach(async () => {
    await core.deleteNamespace({ name: current.name }).catch(() => undefined);
  });
  return current;
}

/** The object `read` finds, or undefined when the apiserver says 404; any other failure is thrown. */
export async function unlessNotFound<T>(read: Promise<T>): Promise<T | undefined> {
  try {
    return await read;
  } catch (error) {
    if (error instanceof ApiException && error.code === 404) return undefined;
    throw error;
  }
}
