import {
  type DemandCache,
  deepEqual,
  type KubeObject,
  objectKey,
  type ResourceType,
  type Source,
  updatesWhen,
} from "../../runtime/index.ts";
import { type CredentialSettings, credentialCandidates } from "./credentials.ts";
import { type SecretRef, secretKey } from "./secrets.ts";

/** The `spec.credentialsRef` of any berth resource, read leniently from the raw object. */
function credentialsRefOf(object: KubeObject): { name: string } | undefined {
  const ref = (object.spec as { credentialsRef?: { name?: unknown } } | undefined)?.credentialsRef;
  return typeof ref?.name === "string" ? { name: ref.name } : undefined;
}

/** The Secrets a resource's credentials may come from (see `credentialCandidates`). */
export function credentialSecrets(object: KubeObject, settings: CredentialSettings): SecretRef[] {
  return credentialCandidates(object.metadata.namespace ?? "default", credentialsRefOf(object), settings);
}

/** The Secrets an App's env names, read leniently from the raw object (other kinds have no env). */
function envSecretNames(object: KubeObject): string[] {
  const env = (object.spec as { env?: unknown } | undefined)?.env;
  if (!Array.isArray(env)) return [];
  return env.flatMap((entry: { valueFrom?: { secretKeyRef?: { name?: unknown } } }) => {
    const name = entry?.valueFrom?.secretKeyRef?.name;
    return typeof name === "string" ? [name] : [];
  });
}

/**
 * Every Secret a berth resource reads (`namespace/name`, each once): those its credentials may
 * come from (see `credentialCandidates`) and those its env names.
 */
export function secretsOf(object: KubeObject, settings: CredentialSettings): string[] {
  const namespace = object.metadata.namespace ?? "default";
  const refs = [
    ...credentialSecrets(object, settings),
    ...envSecretNames(object).map((name) => ({ namespace, name })),
  ];
  return [...new Set(refs.map(secretKey))];
}

/** What a dependant acts on in a Secret: whether it exists, its type and its values. */
function sameContent(before: KubeObject, after: KubeObject): boolean {
  const { data: a, type: ta } = before as { data?: unknown; type?: unknown };
  const { data: b, type: tb } = after as { data?: unknown; type?: unknown };
  return ta === tb && deepEqual(a ?? null, b ?? null);
}

/**
 * Who reads which Secret, kept from the berth informers' events: it tells the Secret cache what to
 * read and keep (`demand` when a Secret gets its first reader, `release` when it loses its last), and
 * maps a Secret's change to exactly the resources that read it, without looking at the others.
 */
export class SecretUsers {
  readonly cache: DemandCache;
  readonly #settings: CredentialSettings;
  /** Secret key → resource plural → keys of the resources that read it. */
  readonly #users = new Map<string, Map<string, Set<string>>>();

  constructor(cache: DemandCache, settings: CredentialSettings) {
    this.cache = cache;
    this.#settings = settings;
  }

  /** Follows the resources of `type` (call before the informers start). */
  track(type: ResourceType, source: Source): void {
    source.on({
      add: (object) => this.#use(type, object, secretsOf(object, this.#settings)),
      update: (old, object) => {
        const before = secretsOf(old, this.#settings);
        const after = secretsOf(object, this.#settings);
        this.#use(type, object, after);
        this.#stopUsing(
          type,
          old,
          before.filter((key) => !after.includes(key)),
        );
      },
      delete: (object) => this.#stopUsing(type, object, secretsOf(object, this.#settings)),
    });
    for (const object of source.list()) this.#use(type, object, secretsOf(object, this.#settings));
    this.cache.dependsOn(source);
  }

  /** The keys of the resources of `type` that read the Secret `secret` (`namespace/name`). */
  users(type: ResourceType, secret: string): string[] {
    return [...(this.#users.get(secret)?.get(type.plural) ?? [])];
  }

  /** The Secret as the cache holds it; undefined when it does not exist (or is not read yet). */
  get(ref: SecretRef): KubeObject | undefined {
    return this.cache.get(secretKey(ref));
  }

  /** Resolves once every Secret `object` reads is known to the cache (read, or known not to exist). */
  settle(object: KubeObject): Promise<void> {
    return this.cache.settle(secretsOf(object, this.#settings));
  }

  /**
   * The Secrets as a dependant watches them: created, deleted, or changed in type or values. A new
   * finalizer, label or annotation is no news to a reader.
   */
  changes(): Source {
    return updatesWhen(this.cache.changes(), (old, object) => !sameContent(old, object));
  }

  #use(type: ResourceType, object: KubeObject, secrets: readonly string[]): void {
    const key = objectKey(object);
    for (const secret of secrets) {
      let byType = this.#users.get(secret);
      if (byType === undefined) {
        byType = new Map();
        this.#users.set(secret, byType);
        this.cache.demand(secret);
      }
      let keys = byType.get(type.plural);
      if (keys === undefined) {
        keys = new Set();
        byType.set(type.plural, keys);
      }
      keys.add(key);
    }
  }

  #stopUsing(type: ResourceType, object: KubeObject, secrets: readonly string[]): void {
    const key = objectKey(object);
    for (const secret of secrets) {
      const byType = this.#users.get(secret);
      const keys = byType?.get(type.plural);
      if (byType === undefined || keys === undefined) continue;
      keys.delete(key);
      if (keys.size === 0) byType.delete(type.plural);
      if (byType.size > 0) continue;
      this.#users.delete(secret);
      this.cache.release(secret);
    }
  }
}
