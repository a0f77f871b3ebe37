import type { AppPatch, CreateAppInput } from "../../hosting/index.ts";
import type { IntentCall } from "../shared/intents.ts";
import type { AppField } from "./diff.ts";

/** What `act` does at the service or on the App, in order. */
export type AppAction =
  | { type: "addFinalizer" }
  | { type: "removeFinalizer" }
  | { type: "create"; projectId: string; body: CreateAppInput; idempotencyKey: string; intent: IntentCall }
  | { type: "update"; patch: AppPatch; fields: AppField[]; drift: boolean }
  | { type: "start"; drift: boolean }
  | { type: "stop" }
  | { type: "restart"; requestedAt: string; intent: IntentCall }
  | { type: "triggerBuild"; requestedAt: string; intent: IntentCall }
  | { type: "delete" }
  /** Move the app to another project, keeping its ID. */
  | { type: "move"; from: string; to: string; intent: IntentCall }
  /** A Warning event with the failed build's log tail (no call). */
  | { type: "reportBuildLog"; buildId: string; tail: string }
  /** Remember (in memory) that the echoed request is yet to be carried out; no call. */
  | { type: "claim"; request: "restart" | "rebuild"; value: string };

/**
 * Scopes each call needs at the service, as far as the spec says they are required: a call a key
 * certainly can't make is refused before sending. An update "may also need" compute:spend (spec
 * scope rule 4): berth sends it, and a 403 insufficient_scope becomes Stalled MissingScopes.
 */
export function scopesFor(action: AppAction): string[] {
  switch (action.type) {
    case "create":
    case "start":
    case "restart":
      return ["apps:write", "compute:spend"];
    case "update":
    case "stop":
    case "triggerBuild":
      return ["apps:write"];
    case "delete":
    case "move":
      return ["apps:admin"];
    default:
      return [];
  }
}
