import { readFile } from "node:fs/promises";
import path from "node:path";
import {
  type KubeConfig,
  type KubernetesObject,
  KubernetesObjectApi,
  loadAllYaml,
  PatchStrategy,
} from "@kubernetes/client-node";
import { parse } from "yaml";
import { z } from "zod";
import { packageRoot } from "../control-plane/binary.ts";

export const samplesDirectory = path.join(packageRoot, "deploy", "samples");

const kustomizationSchema = z.object({ resources: z.array(z.string()).min(1) });

/** Reads the objects the samples' kustomization lists, in its order. */
export async function loadSamples(directory = samplesDirectory): Promise<KubernetesObject[]> {
  const kustomization = kustomizationSchema.parse(
    parse(await readFile(path.join(directory, "kustomization.yaml"), "utf8")),
  );
  const files = await Promise.all(
    kustomization.resources.map((file) => readFile(path.join(directory, file), "utf8")),
  );
  return files.flatMap((text) => loadAllYaml(text) as KubernetesObject[]);
}

/** Server-side applies the samples into `namespace` (without kubectl, so `berth dev` needs only Node and Go). */
export async function applySamples(kubeConfig: KubeConfig, namespace: string): Promise<string[]> {
  const client = KubernetesObjectApi.makeApiClient(kubeConfig);
  const applied: string[] = [];
  for (const object of await loadSamples()) {
    object.metadata = { ...object.metadata, namespace };
    await client.patch(object, undefined, undefined, "berth-dev", true, PatchStrategy.ServerSideApply);
    applied.push(`${object.kind}/${object.metadata.name}`);
  }
  return applied;
}
