import { z } from "zod";
import { credentials as names } from "../../api/meta.ts";
import { readSecretValue, type SecretLookup, type SecretRef, secretKey } from "./secrets.ts";

/** How the operator finds credentials for a resource that names none of its own. */
export interface CredentialSettings {
  /** The operator's default credentials Secret; undefined disables the fallback (multi-tenant clusters). */
  defaultSecret: SecretRef | undefined;
  /** Base URL used when a credentials Secret has no `baseUrl`. */
  defaultBaseUrl: string | undefined;
}

export interface Credentials {
  apiKey: string;
  baseUrl: string;
  /** The Secret they came from, for messages. */
  secret: SecretRef;
  /** Where the base URL came from: the Secret's `baseUrl`, or the operator's `--hosting-base-url`. */
  baseUrlFrom: "secret" | "flag";
}

export type CredentialsResult = { ok: true; credentials: Credentials } | { ok: false; message: string };

const baseUrlSchema = z.url({ protocol: /^https?$/ });

/**
 * The Secrets a resource's credentials may come from, in resolution order: `spec.credentialsRef`
 * alone when set; otherwise `berth-credentials` in the resource's namespace, then the operator's
 * default. A resource never reads a Secret of another namespace, except the operator's default.
 */
export function credentialCandidates(
  namespace: string,
  credentialsRef: { name: string } | undefined,
  settings: CredentialSettings,
): SecretRef[] {
  if (credentialsRef !== undefined) return [{ namespace, name: credentialsRef.name }];
  const local = { namespace, name: names.defaultSecretName };
  return settings.defaultSecret === undefined ? [local] : [local, settings.defaultSecret];
}

/** The first candidate Secret that exists decides; a broken one is an error, never skipped. */
export function resolveCredentials(
  namespace: string,
  credentialsRef: { name: string } | undefined,
  settings: CredentialSettings,
  lookup: SecretLookup,
): CredentialsResult {
  const candidates = credentialCandidates(namespace, credentialsRef, settings);
  const secret = candidates.find((ref) => lookup(ref) !== undefined);
  if (secret === undefined) {
    const tried = candidates.map((ref) => `Secret ${secretKey(ref)}`).join(", then ");
    return {
      ok: false,
      message: `no hosting credentials found: looked for ${tried}; create it with key "${names.apiKeyKey}" holding the API key`,
    };
  }
  const apiKey = readSecretValue(lookup, secret, names.apiKeyKey);
  if (!apiKey.ok || apiKey.value.trim() === "" || /\s/.test(apiKey.value.trim())) {
    return {
      ok: false,
      message: `Secret ${secretKey(secret)} has no usable "${names.apiKeyKey}" key: set it to the API key (no spaces)`,
    };
  }
  const fromSecret = readSecretValue(lookup, secret, names.baseUrlKey);
  const baseUrl = fromSecret.ok ? fromSecret.value.trim() : settings.defaultBaseUrl;
  if (baseUrl === undefined) {
    return {
      ok: false,
      message: `Secret ${secretKey(secret)} has no "${names.baseUrlKey}" and the operator has no --hosting-base-url: set one of them`,
    };
  }
  if (!baseUrlSchema.safeParse(baseUrl).success) {
    const where = fromSecret.ok
      ? `"${names.baseUrlKey}" of Secret ${secretKey(secret)}`
      : "--hosting-base-url";
    return {
      ok: false,
      message: `${where} is not an http(s) URL: set it to the API's base URL ending in /v1`,
    };
  }
  return {
    ok: true,
    credentials: {
      apiKey: apiKey.value.trim(),
      baseUrl,
      secret,
      baseUrlFrom: fromSecret.ok ? "secret" : "flag",
    },
  };
}
