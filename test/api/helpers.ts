import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { ApiException, CustomObjectsApi } from "@kubernetes/client-node";
import {
  appNames,
  gridNames,
  group,
  type KindNames,
  projectNames,
  serverOrderNames,
  version,
} from "../../src/api/index.ts";
import { kubeConfig, kubeconfigPath } from "../support/kube.ts";

const run = promisify(execFile);

export async function kubectl(...args: string[]): Promise<string> {
  const { stdout } = await run("kubectl", ["--kubeconfig", kubeconfigPath(), ...args]);
  return stdout;
}

export type Manifest = { kind: string; metadata: { name: string }; spec?: Record<string, unknown> } & Record<
  string,
  unknown
>;

const namesByKind: Record<string, KindNames> = Object.fromEntries(
  [appNames, projectNames, gridNames, serverOrderNames].map((names) => [names.kind, names]),
);

function pluralOf(kind: string): string {
  const names = namesByKind[kind];
  if (!names) throw new Error(`not a berth kind: ${kind}`);
  return names.plural;
}

export function objectsApi(): CustomObjectsApi {
  return kubeConfig().makeApiClient(CustomObjectsApi);
}

export function create(namespace: string, manifest: Manifest): Promise<unknown> {
  return objectsApi().createNamespacedCustomObject({
    group,
    version,
    namespace,
    plural: pluralOf(manifest.kind),
    body: manifest,
  });
}

/** Replaces the spec of an existing object (reads it first for its resourceVersion). */
export async function replaceSpec(namespace: string, manifest: Manifest): Promise<unknown> {
  const api = objectsApi();
  const request = {
    group,
    version,
    namespace,
    plural: pluralOf(manifest.kind),
    name: manifest.metadata.name,
  };
  const current = (await api.getNamespacedCustomObject(request)) as Manifest;
  return api.replaceNamespacedCustomObject({ ...request, body: { ...current, spec: manifest.spec } });
}

/** The apiserver's message for a refused request; fails when the request succeeded. */
export async function refusal(request: Promise<unknown>): Promise<string> {
  try {
    await request;
  } catch (error) {
    if (!(error instanceof ApiException)) throw error;
    const body: unknown = typeof error.body === "string" ? JSON.parse(error.body) : error.body;
    const message = (body as { message?: unknown }).message;
    return typeof message === "string" ? message : JSON.stringify(body);
  }
  throw new Error("the apiserver accepted the request");
}
