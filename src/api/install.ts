import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import {
  ApiException,
  ApiextensionsV1Api,
  type KubeConfig,
  KubernetesObjectApi,
  loadYaml,
  PatchStrategy,
  type V1CustomResourceDefinition,
} from "@kubernetes/client-node";
import { parse } from "yaml";
import { z } from "zod";
import { crdDirectory } from "./crd/files.ts";
import { ApiError } from "./errors.ts";

export interface InstallCrdsOptions {
  /** Directory of CRD files to apply; defaults to the package's `crds/`. */
  directory?: string;
  /** Server-side apply field manager. */
  fieldManager?: string;
  /** How long each CRD may take to become Established. */
  timeoutMs?: number;
}

const crdFileSchema = z.looseObject({
  apiVersion: z.literal("apiextensions.k8s.io/v1"),
  kind: z.literal("CustomResourceDefinition"),
  metadata: z.looseObject({ name: z.string().min(1) }),
});

/**
 * Applies every CRD file with server-side apply and waits until each is Established. Idempotent:
 * applying the same files again changes nothing, so concurrent callers are safe.
 */
export async function installCrds(
  kubeConfig: KubeConfig,
  options: InstallCrdsOptions = {},
): Promise<string[]> {
  const crds = await loadCrdFiles(options.directory ?? crdDirectory);
  const objects = KubernetesObjectApi.makeApiClient(kubeConfig);
  const extensions = kubeConfig.makeApiClient(ApiextensionsV1Api);
  const fieldManager = options.fieldManager ?? "berth";
  const timeoutMs = options.timeoutMs ?? 30_000;
  await Promise.all(
    crds.map(async (crd) => {
      const name = crd.metadata?.name ?? "";
      try {
        await objects.patch(crd, undefined, undefined, fieldManager, true, PatchStrategy.ServerSideApply);
      } catch (error) {
        throw new ApiError("crd_rejected", `the apiserver refused CRD ${name}: ${apiserverMessage(error)}`);
      }
      await waitEstablished(extensions, name, timeoutMs);
    }),
  );
  return crds.map((crd) => crd.metadata?.name ?? "");
}

/** Reads and checks every `*.yaml` CRD file in a directory, in name order. */
export async function loadCrdFiles(directory: string): Promise<V1CustomResourceDefinition[]> {
  const names = (await readdir(directory).catch(() => [])).filter((name) => name.endsWith(".yaml")).sort();
  if (names.length === 0) {
    throw new ApiError(
      "invalid_crd_file",
      `no CRD files in ${directory}: run \`npm run generate\` to write them`,
    );
  }
  return Promise.all(
    names.map(async (name) => {
      const file = path.join(directory, name);
      const text = await readFile(file, "utf8");
      const parsed = crdFileSchema.safeParse(parse(text));
      if (!parsed.success) {
        throw new ApiError(
          "invalid_crd_file",
          `${file} is not a CustomResourceDefinition: ${z.prettifyError(parsed.error)}`,
        );
      }
      // The client's typed model maps x-kubernetes-* keys; loadYaml builds that model from the YAML.
      return loadYaml<V1CustomResourceDefinition>(text);
    }),
  );
}

async function waitEstablished(api: ApiextensionsV1Api, name: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let problem = "no Established condition yet";
  while (Date.now() < deadline) {
    const crd = await api.readCustomResourceDefinition({ name });
    const conditions = crd.status?.conditions ?? [];
    if (conditions.some((c) => c.type === "Established" && c.status === "True")) return;
    const namesRefused = conditions.find((c) => c.type === "NamesAccepted" && c.status === "False");
    if (namesRefused) {
      throw new ApiError(
        "crd_rejected",
        `CRD ${name}: names not accepted: ${namesRefused.message ?? namesRefused.reason}`,
      );
    }
    problem = conditions.map((c) => `${c.type}=${c.status} (${c.reason ?? ""})`).join(", ") || problem;
    await sleep(100);
  }
  throw new ApiError(
    "crd_not_established",
    `CRD ${name} not Established after ${timeoutMs / 1000}s: ${problem}`,
  );
}

function apiserverMessage(error: unknown): string {
  if (error instanceof ApiException) {
    const body = z
      .object({ message: z.string() })
      .safeParse(typeof error.body === "string" ? safeJson(error.body) : error.body);
    return body.success ? body.data.message : `HTTP ${error.code}`;
  }
  return error instanceof Error ? error.message : String(error);
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
