import { annotations } from "../../api/meta.ts";
import { type KubeObject, objectKey, patchAnnotations, type ResourceType } from "../../runtime/index.ts";
import type { ControllerDeps } from "../service/deps.ts";
import { annotatedIntents, heldKeys, type IntentRef, intentsIn } from "./held-intents.ts";

// `berth.dev/owned` carries the calls a resource has open, so a restore without status can settle
// them. A copy of the manifest (`kubectl get -o yaml`, renamed and applied) carries them too; asked
// again under the same key, the service would answer the copy with the original's object. A call
// whose key an older resource still holds is the older one's: the copy drops it from its annotation.

/** The intents the annotation carries that status does not record (a restore, or a copy). */
function restorable(object: KubeObject): IntentRef[] {
  const ownStatus = intentsIn((object.status as { intents?: unknown } | undefined)?.intents);
  return ownStatus.length > 0 ? [] : annotatedIntents(object);
}

/**
 * The `berth.dev/owned` value without the restorable intents whose keys `others` hold, and the
 * operations dropped; undefined when none is another's. Pure.
 */
export function withoutCopiedIntents(
  object: KubeObject,
  others: ReadonlySet<string>,
): { value: string | null; dropped: string[] } | undefined {
  const annotated = restorable(object);
  const copied = annotated.filter((i) => typeof i.key === "string" && others.has(i.key));
  if (copied.length === 0) return undefined;
  const { intents: _, ...rest } = JSON.parse(
    object.metadata.annotations?.[annotations.owned] ?? "{}",
  ) as Record<string, unknown>;
  const intents = annotated.filter((i) => !copied.includes(i));
  const next = intents.length === 0 ? rest : { ...rest, intents };
  return {
    value: Object.keys(next).length === 0 ? null : JSON.stringify(next),
    dropped: copied.map((i) => String(i.operation ?? "a call")),
  };
}

/**
 * The object with the calls it was copied with, but an older resource holds, dropped from its
 * `berth.dev/owned` annotation (one write, and a Normal event naming them); the object as it was
 * when there are none. Other resources are looked for in the cache, and only when the annotation
 * carries intents that status does not.
 */
export async function dropCopiedIntents(
  deps: ControllerDeps,
  type: ResourceType,
  object: KubeObject,
): Promise<KubeObject> {
  if (restorable(object).length === 0) return object;
  const others = new Set(
    deps
      .informer(type)
      .list()
      .filter((other) => older(other, object))
      .flatMap(heldKeys),
  );
  const copied = withoutCopiedIntents(object, others);
  if (copied === undefined) return object;
  const written = await patchAnnotations(deps.kube, type, object, { [annotations.owned]: copied.value });
  deps.recorder.record(
    object,
    "Normal",
    "CopiedCallsDropped",
    `${copied.dropped.join(", ")}: copied with the manifest of another ${type.kind ?? "resource"}, which still ` +
      "holds the call; this one makes its own",
    "dropCopiedIntents",
  );
  return written ?? object;
}

/**
 * Of two resources carrying the same call, the older keeps it (the original, not its copy), so
 * exactly one does: by creation time, then by namespace/name.
 */
export function older(other: KubeObject, object: KubeObject): boolean {
  const at = (o: KubeObject) => o.metadata.creationTimestamp ?? "";
  if (at(other) !== at(object)) return at(other) < at(object);
  return objectKey(other) < objectKey(object);
}
