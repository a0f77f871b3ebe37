import { finalizer } from "../../api/meta.ts";
import type { KubeObject } from "../../runtime/index.ts";
import type { CredentialSettings } from "../service/credentials.ts";
import { credentialSecrets } from "../service/secret-users.ts";
import { type SecretLookup, secretKey } from "../service/secrets.ts";

/** Kept on a credentials Secret while a berth resource may still need it to reach the service. */
export const credentialsInUse = "berth.dev/credentials-in-use";

/** A Secret carrying berth's finalizer: the Secret cache keeps it, used or not, so the finalizer can go. */
export function holdsCredentialsFinalizer(metadata: { finalizers?: string[] | undefined }): boolean {
  return (metadata.finalizers ?? []).includes(credentialsInUse);
}

/** The Secret a resource's credentials come from now: the first candidate that exists. */
export function resolvedSecret(
  object: KubeObject,
  settings: CredentialSettings,
  lookup: SecretLookup,
): string | undefined {
  const ref = credentialSecrets(object, settings).find((candidate) => lookup(candidate) !== undefined);
  return ref === undefined ? undefined : secretKey(ref);
}

/**
 * Whether any resource still needs the Secret `key`: one whose credentials come from it and that
 * holds berth's finalizer, so an external object may exist that only this key can delete. Pure.
 */
export function secretInUse(
  key: string,
  resources: Iterable<KubeObject>,
  resolve: (object: KubeObject) => string | undefined,
): boolean {
  for (const resource of resources) {
    if ((resource.metadata.finalizers ?? []).includes(finalizer) && resolve(resource) === key) return true;
  }
  return false;
}
