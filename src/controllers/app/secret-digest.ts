import { createHmac } from "node:crypto";
import type { DesiredEnv } from "./desired.ts";

/**
 * Digest of one secret env value, keyed with the API key: status can be read by people who may not
 * read the Secret, so a plain hash of a short secret could be guessed back; a keyed one cannot.
 * (Rotating the API key changes every digest: the values are sent once more, which changes nothing.)
 */
export function secretDigest(apiKey: string, name: string, value: string): string {
  return createHmac("sha256", apiKey).update(`${name}\0${value}`).digest("hex").slice(0, 16);
}

/** `status.secretDigest`: `NAME:digest` pairs, sorted, comma-separated; undefined without secret env. */
export function formatSecretDigests(env: readonly DesiredEnv[]): string | undefined {
  const pairs = env
    .filter((e) => e.secret && e.digest !== undefined)
    .map((e) => `${e.name}:${e.digest}`)
    .sort();
  return pairs.length === 0 ? undefined : pairs.join(",");
}

export function parseSecretDigests(text: string | undefined): Map<string, string> {
  const digests = new Map<string, string>();
  for (const pair of (text ?? "").split(",")) {
    const colon = pair.lastIndexOf(":");
    if (colon > 0) digests.set(pair.slice(0, colon), pair.slice(colon + 1));
  }
  return digests;
}
