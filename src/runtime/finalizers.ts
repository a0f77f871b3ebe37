import { isKubeError } from "./errors.ts";
import { type KubeClient, patchTypes } from "./kube-client.ts";
import { asKubeObject, type KubeObject, type ObjectName, objectPath, type ResourceType } from "./object.ts";

const maxAttempts = 5;

export function hasFinalizer(object: KubeObject, finalizer: string): boolean {
  return object.metadata.finalizers?.includes(finalizer) ?? false;
}

/**
 * Adds `finalizer` unless present (call it before the first external create). The JSON patch
 * tests the array it extends (or the resourceVersion when there is none), so a concurrent change
 * makes it re-read and retry instead of overwriting another controller's entry.
 */
export async function ensureFinalizer(
  client: KubeClient,
  type: ResourceType,
  object: KubeObject,
  finalizer: string,
): Promise<KubeObject> {
  return await withRereads(client, type, object, async (current) => {
    const finalizers = current.metadata.finalizers;
    if (finalizers?.includes(finalizer)) return current;
    const patch =
      finalizers === undefined
        ? [
            { op: "test", path: "/metadata/resourceVersion", value: current.metadata.resourceVersion },
            { op: "add", path: "/metadata/finalizers", value: [finalizer] },
          ]
        : [
            { op: "test", path: "/metadata/finalizers", value: finalizers },
            { op: "add", path: "/metadata/finalizers/-", value: finalizer },
          ];
    return await jsonPatch(client, type, current, patch);
  });
}

/**
 * Removes `finalizer` if present. The patch tests the exact index and value it removes, so it
 * never takes out another controller's entry when the array shifted meanwhile. Returns undefined
 * when the object is gone (removing the last finalizer of a deleted object deletes it).
 */
export async function removeFinalizer(
  client: KubeClient,
  type: ResourceType,
  object: KubeObject,
  finalizer: string,
): Promise<KubeObject | undefined> {
  try {
    return await withRereads(client, type, object, async (current) => {
      const index = current.metadata.finalizers?.indexOf(finalizer) ?? -1;
      if (index < 0) return current;
      const path = `/metadata/finalizers/${index}`;
      return await jsonPatch(client, type, current, [
        { op: "test", path, value: finalizer },
        { op: "remove", path },
      ]);
    });
  } catch (error) {
    if (isKubeError(error, "not_found")) return undefined;
    throw error;
  }
}

/** Runs `attempt`; when a patch's test fails (the object moved on), re-reads and tries again. */
async function withRereads(
  client: KubeClient,
  type: ResourceType,
  object: KubeObject,
  attempt: (current: KubeObject) => Promise<KubeObject>,
): Promise<KubeObject> {
  let current = object;
  for (let n = 1; ; n++) {
    try {
      return await attempt(current);
    } catch (error) {
      const testFailed = isKubeError(error, "invalid") || isKubeError(error, "conflict");
      if (!testFailed || n >= maxAttempts) throw error;
      current = asKubeObject(await client.call("GET", objectPath(type, nameOf(current))));
    }
  }
}

async function jsonPatch(client: KubeClient, type: ResourceType, object: KubeObject, patch: unknown[]) {
  const body = await client.call("PATCH", objectPath(type, nameOf(object)), {
    body: patch,
    contentType: patchTypes.json,
  });
  return asKubeObject(body);
}

function nameOf(object: KubeObject): ObjectName {
  return { namespace: object.metadata.namespace, name: object.metadata.name };
}
