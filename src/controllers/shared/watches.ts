import type { Informer, KubeObject, MapToKeys, Source } from "../../runtime/index.ts";
import { objectKey } from "../../runtime/index.ts";
import type { Watch } from "./controller.ts";
import { type CredentialSettings, credentialCandidates } from "./credentials.ts";
import type { ControllerDeps } from "./deps.ts";
import { type SecretRef, secretKey, secretType } from "./secrets.ts";

/** The `spec.credentialsRef` of any berth resource, read leniently from the raw object. */
function credentialsRefOf(object: KubeObject): { name: string } | undefined {
  const ref = (object.spec as { credentialsRef?: { name?: unknown } } | undefined)?.credentialsRef;
  return typeof ref?.name === "string" ? { name: ref.name } : undefined;
}

/** The Secrets a resource's credentials may come from (see `credentialCandidates`). */
export function credentialSecrets(object: KubeObject, settings: CredentialSettings): SecretRef[] {
  return credentialCandidates(object.metadata.namespace ?? "default", credentialsRefOf(object), settings);
}

/** A Secret change re-enqueues the primaries that read it (`secretsOf`: the Secrets each reads). */
export function secretUsers(primaries: Informer, secretsOf: (object: KubeObject) => SecretRef[]): MapToKeys {
  return (secret) => {
    const changed = secretKey({ namespace: secret.metadata.namespace ?? "", name: secret.metadata.name });
    return primaries
      .list()
      .filter((object) => secretsOf(object).some((ref) => secretKey(ref) === changed))
      .map(objectKey);
  };
}

/** Secret changes re-enqueue the primaries whose credentials the Secret may hold. */
export function credentialsWatch(deps: ControllerDeps, primaries: Informer): Watch {
  return {
    informer: deps.informer(secretType),
    map: secretUsers(primaries, (object) => credentialSecrets(object, deps.credentials)),
  };
}

/** A change of a same-namespace object re-enqueues the primaries whose `refsOf` name it. */
export function referrers(primaries: Informer, refsOf: (object: KubeObject) => string[]): MapToKeys {
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
  return {
    list: () => informer.list(),
    waitForSync: () => informer.waitForSync(),
    on: (handlers) =>
      informer.on({
        ...handlers,
        update: (oldObject, newObject) => {
          if (dependantView(oldObject, ignoredStatus) !== dependantView(newObject, ignoredStatus))
            handlers.update?.(oldObject, newObject);
        },
      }),
  };
}
