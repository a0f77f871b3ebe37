import type { KubeObject, MapToKeys, ObjectCache, ResourceType, Source } from "../../runtime/index.ts";
import { objectKey, updatesWhen } from "../../runtime/index.ts";
import type { ControllerDeps } from "../service/deps.ts";
import { managementChanged, namespaceType } from "../service/namespaces.ts";
import type { Watch } from "./controller.ts";

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

/**
 * A Namespace whose pause or defaults changed re-enqueues every resource of `type` in it, so
 * lifting a pause resumes at once (a watch, not a poll).
 */
export function namespacesWatch(deps: ControllerDeps, type: ResourceType): Watch {
  return {
    informer: updatesWhen(deps.informer(namespaceType), managementChanged),
    map: (namespace) =>
      deps
        .informer(type)
        .list()
        .filter((object) => object.metadata.namespace === namespace.metadata.name)
        .map(objectKey),
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
 * transition times, resourceVersion), and without the status fields named in `ignored` (what the
 * dependant never reads).
 */
export function dependantView(object: KubeObject, ignored: readonly string[] = []): string {
  const { metadata, spec } = object;
  const {
    lastRequestId: _,
    conditions,
    ...all
  } = (object.status ?? {}) as {
    lastRequestId?: unknown;
    conditions?: { type?: unknown; status?: unknown; reason?: unknown }[];
  } & Record<string, unknown>;
  const status = Object.fromEntries(Object.entries(all).filter(([field]) => !ignored.includes(field)));
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
 * that watch each other don't wake each other on every failure. `ignoredStatus`: status fields the
 * dependants never read (a Project's cost, which changes with every App and would wake them all).
 */
export function meaningfulChanges(informer: Source, ignoredStatus: readonly string[] = []): Source {
  return updatesWhen(
    informer,
    (oldObject, newObject) =>
      dependantView(oldObject, ignoredStatus) !== dependantView(newObject, ignoredStatus),
  );
}
