import { type KubeClient, patchTypes } from "./kube-client.ts";
import { asKubeObject, type KubeObject, objectPath, type ResourceType } from "./object.ts";

/**
 * Sets these annotations (null removes one) with one merge patch of metadata, none when they
 * already hold. The patch leaves every other annotation as it is.
 */
export async function patchAnnotations(
  client: KubeClient,
  type: ResourceType,
  object: KubeObject,
  wanted: Record<string, string | null>,
): Promise<KubeObject | undefined> {
  const current = object.metadata.annotations ?? {};
  const changed = Object.entries(wanted).filter(([key, value]) => (current[key] ?? null) !== value);
  if (changed.length === 0) return undefined;
  const path = objectPath(type, { namespace: object.metadata.namespace, name: object.metadata.name });
  const body = { metadata: { annotations: Object.fromEntries(changed) } };
  return asKubeObject(await client.call("PATCH", path, { body, contentType: patchTypes.merge }));
}
