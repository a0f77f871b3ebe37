import { annotations } from "../../api/meta.ts";

type Annotated = { metadata: { annotations?: Record<string, string> | undefined } };

/** The reconcile request to handle: berth's annotation, else Flux's `reconcile.fluxcd.io/requestedAt`. */
export function reconcileRequest(object: Annotated): string | undefined {
  const values = object.metadata.annotations ?? {};
  return values[annotations.reconcileRequestedAt] ?? values[annotations.fluxReconcileRequestedAt];
}

/** The annotation's value when it asks for something not yet handled (its value differs from the echo). */
export function pendingRequest(
  value: string | undefined,
  lastHandled: string | undefined,
): string | undefined {
  return value !== undefined && value !== "" && value !== lastHandled ? value : undefined;
}
