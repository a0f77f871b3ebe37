import type { KubeObject } from "../../runtime/index.ts";
import type { ControllerDeps } from "./deps.ts";
import type { Failure } from "./failure.ts";
import type { Connection } from "./hosting-access.ts";

/** The parts of a kind's act input a failed action touches. */
export interface ActFailureInput {
  deps: ControllerDeps;
  /** The object the reconcile started from: the Warning event's subject. */
  object: KubeObject;
  observed: { requestId: string | undefined };
  connection: Connection | undefined;
}

/**
 * What every failed action does: drops the cached identity when the key's scopes or projects may
 * have changed, keeps the request ID for the status, and records a Warning event naming the action.
 */
export function settleActionFailure(input: ActFailureInput, action: string, failure: Failure): void {
  const { deps, connection, observed } = input;
  if (failure.refreshIdentity && connection !== undefined) deps.hosting.forgetIdentity(connection.client);
  if (failure.requestId !== undefined) observed.requestId = failure.requestId;
  deps.recorder.record(input.object, "Warning", failure.reason, failure.message, action);
}
