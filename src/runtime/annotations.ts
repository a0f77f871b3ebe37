import { z } from "zod";
import { type KubeClient, patchTypes } from "./kube-client.ts";
import { asKubeObject, collectionPath, type KubeObject, objectPath, type ResourceType } from "./object.ts";

/** Labels and annotations to set (null removes one). */
export interface MetadataChange {
  labels?: Record<string, string | null>;
  annotations?: Record<string, string | null>;
}

function changedOf(
  current: Record<string, string> | undefined,
  wanted: Record<string, string | null> | undefined,
): Record<string, string | null> | undefined {
  const changed = Object.entries(wanted ?? {}).filter(([key, value]) => (current?.[key] ?? null) !== value);
  return changed.length === 0 ? undefined : Object.fromEntries(changed);
}

/**
 * Sets these labels and annotations with one merge patch of metadata, none when they already hold.
 * The patch leaves every other label and annotation as it is.
 */
export async function patchMetadata(
  client: KubeClient,
  type: ResourceType,
  object: KubeObject,
  wanted: MetadataChange,
): Promise<KubeObject | undefined> {
  const labels = changedOf(object.metadata.labels, wanted.labels);
  const annotations = changedOf(object.metadata.annotations, wanted.annotations);
  if (labels === undefined && annotations === undefined) return undefined;
  const path = objectPath(type, { namespace: object.metadata.namespace, name: object.metadata.name });
  const body = { metadata: { ...(labels && { labels }), ...(annotations && { annotations }) } };
  return asKubeObject(await client.call("PATCH", path, { body, contentType: patchTypes.merge }));
}

/** Sets these annotations (null removes one); see `patchMetadata`. */
export function patchAnnotations(
  client: KubeClient,
  type: ResourceType,
  object: KubeObject,
  wanted: Record<string, string | null>,
): Promise<KubeObject | undefined> {
  return patchMetadata(client, type, object, { annotations: wanted });
}

const listSchema = z.object({ items: z.array(z.unknown()) });

/**
 * The objects with this label, read from the apiserver itself (not a cache): in each of
 * `namespaces`, or in all when none is given. Lists of labelled objects are small; one page is read.
 */
export async function listLabelled(
  client: KubeClient,
  type: ResourceType,
  selector: string,
  namespaces: readonly string[],
): Promise<KubeObject[]> {
  const scopes = namespaces.length === 0 ? [undefined] : namespaces;
  const found: KubeObject[] = [];
  for (const namespace of scopes) {
    const body = await client.call("GET", collectionPath(type, namespace), {
      query: { labelSelector: selector },
    });
    for (const item of listSchema.parse(body).items) found.push(asKubeObject(item));
  }
  return found;
}
