import { annotations } from "../../api/meta.ts";
import { type KubeObject, objectKey, type ResourceType } from "../../runtime/index.ts";
import { ownedOfWhom } from "./owned.ts";

// `berth.dev/owned` carries what a resource owns and the calls it has open, so a restore without
// status rebuilds them; it names whose it is. A copy of the manifest (`kubectl get -o yaml`,
// renamed or put in another namespace) carries another's: asked again under the same keys, the
// service would answer the copy with the other's objects. So while that resource is there, the
// copy stands aside; a restore (same name and namespace, or the original gone) goes on.

/**
 * The resource (namespace/name) whose `berth.dev/owned` this one carries, when that is another
 * resource that `exists`; undefined for its own, an annotation that does not say, or one whose
 * resource is gone. Pure.
 */
export function copiedFrom(object: KubeObject, exists: (key: string) => boolean): string | undefined {
  const of = ownedOfWhom(object);
  return of === undefined || of === objectKey(object) || !exists(of) ? undefined : of;
}

/** What a copy standing aside says, and how to make it a resource of its own. */
export function copiedMessage(type: ResourceType, source: string): string {
  const kind = type.kind ?? type.plural;
  return (
    `this ${kind} carries the ${annotations.owned} annotation of ${kind} ${source} (a copy of its manifest), ` +
    "whose calls and objects are that one's; it changes nothing and is released without calls when deleted. " +
    `To create an object of its own, remove the annotation ${annotations.owned}`
  );
}
