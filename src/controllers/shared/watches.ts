import type { KubeObject, MapToKeys, ObjectCache, ResourceType, Source } from "../../runtime/index.ts";
import { objectKey } from "../../runtime/index.ts";
import type { Watch } from "./controller.ts";
import type { ControllerDeps } from "./deps.ts";

/**
 * A Secret's change (created, deleted, new values) re-enqueues exactly the resources of `type` that
 * read it: for credentials, or (an App) for its env.
 */
export function secretsWatch(deps: ControllerDeps, type: ResourceType): Watch {
  return {
    informer: deps.secrets.changes(),
    map: (secret) => deps.secrets.users(type, objectKey(secret)),
  };
}

/** A change of a same-namespace object re-enqueues the primaries whose `refsOf` name it. */
export function referrers(primaries: ObjectCache, refsOf: (object: KubeObject) => string[]): MapToKeys {
  return (changed) =>
    primaries
      .list()
      .filter(
        (object) =>
          object.metadata.namespace === changed.metadata.namespace &&
          refsOf(object).includes(changed.metadata.name),
      )
      .map(objectKey);
}

/**
 * What a dependant can act on in a berth resource: its spec, deletion, finalizers, labels and
 * status, without what changes with every call and says nothing new (the request ID, messages,
 * transition times, resourceVersion).
 */
export function dependantView(object: KubeObject): string {
  const { metadata, spec } = object;
  const {
    lastRequestId: _,
    conditions,
    ...status
  } = (object.status ?? {}) as {
    lastRequestId?: unknown;
    conditions?: { type?: unknown; status?: unknown; reason?: unknown }[];
  };
  return JSON.stringify({
    metadata: {
      generation: metadata.generation,
      deletionTimestamp: metadata.deletionTimestamp,
      finalizers: metadata.finalizers,
      labels: metadata.labels,
    },
    spec,
    status,
    conditions: (conditions ?? []).map((c) => [c.type, c.status, c.reason]),
  });
}

/**
 * The informer as dependants should see it: an update that changes nothing in `dependantView`
 * (a status rewritten with a new request ID after another failed call) wakes no one, so two kinds
 * that watch each other don't wake each other on every failure.
 */
export function meaningfulChanges(informer: Source): Source {
  return {
    list: () => informer.list(),
    waitForSync: () => informer.waitForSync(),
    on: (handlers) =>
      informer.on({
        ...handlers,
        update: (oldObject, newObject) => {
          if (dependantView(oldObject) !== dependantView(newObject)) handlers.update?.(oldObject, newObject);
        },
      }),
  };
}
