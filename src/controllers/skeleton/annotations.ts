import { createHash } from "node:crypto";
import { annotations } from "../../api/meta.ts";

type Annotated = { metadata: { annotations?: Record<string, string> | undefined } };

/** The longest value status can echo (the status fields' maxLength). */
export const maxEcho = 256;

/**
 * A request annotation's value as berth handles and echoes it: a value too long for status is
 * echoed as its digest, so status always stays writable whatever the annotation holds.
 */
export function requestValue(object: Annotated, key: string): string | undefined {
  const value = object.metadata.annotations?.[key];
  if (value === undefined || value.length <= maxEcho) return value;
  return `sha256:${createHash("sha256").update(value).digest("hex")}`;
}

/** The reconcile request to handle: berth's annotation, else Flux's `reconcile.fluxcd.io/requestedAt`. */
export function reconcileRequest(object: Annotated): string | undefined {
  return (
    requestValue(object, annotations.reconcileRequestedAt) ??
    requestValue(object, annotations.fluxReconcileRequestedAt)
  );
}

/** The annotation's value when it asks for something not yet handled (its value differs from the echo). */
export function pendingRequest(
  value: string | undefined,
  lastHandled: string | undefined,
): string | undefined {
  return value !== undefined && value !== "" && value !== lastHandled ? value : undefined;
}
