import { z } from "zod";
import type { KubeObject } from "../../runtime/index.ts";

/** A core/v1 Secret as the informer holds it: values base64 in `data`. */
const secretSchema = z.looseObject({
  metadata: z.looseObject({ name: z.string(), namespace: z.string().optional() }),
  data: z.record(z.string(), z.string()).nullish(),
});

export const secretType = { group: "", version: "v1", plural: "secrets", kind: "Secret" } as const;

/** A Secret by `namespace/name`. */
export interface SecretRef {
  namespace: string;
  name: string;
}

export function secretKey(ref: SecretRef): string {
  return `${ref.namespace}/${ref.name}`;
}

/** Reads Secrets (from the informer's store) by reference. */
export type SecretLookup = (ref: SecretRef) => KubeObject | undefined;

export type SecretValue = { ok: true; value: string } | { ok: false; problem: "no_secret" | "no_key" };

/** One decoded value of a Secret. Never logged or returned in a message: callers name the key only. */
export function readSecretValue(lookup: SecretLookup, ref: SecretRef, key: string): SecretValue {
  const object = lookup(ref);
  if (object === undefined) return { ok: false, problem: "no_secret" };
  const parsed = secretSchema.safeParse(object);
  const encoded = parsed.success ? parsed.data.data?.[key] : undefined;
  if (encoded === undefined) return { ok: false, problem: "no_key" };
  return { ok: true, value: Buffer.from(encoded, "base64").toString("utf8") };
}
