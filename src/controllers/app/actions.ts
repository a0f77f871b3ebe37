import type { AppPatch, CreateAppInput, App as ServiceApp } from "../../hosting/index.ts";
import type { IntentCall } from "../skeleton/intents.ts";
import type { ActionChange } from "../skeleton/kind.ts";
import type { AppField } from "./diff.ts";

/** What `act` does at the service or on the App, in order. */
export type AppAction =
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

export type PowerAction = "start" | "stop" | "restart";

/** What an App's action taught about the app at the service (times are epoch ms). */
export type AppFact =
  | { type: "claimed"; request: "restart" | "rebuild"; value: string }
  /** The app as created: the request as sent, with the answer's id, start and build. */
  | {
      type: "created";
      app: ServiceApp;
      generation: number;
      appliedSecrets: string | undefined;
      at: number;
      buildDueAt: number | undefined;
    }
  | {
      type: "updated";
      app: ServiceApp;
      patch: string;
      at: number;
      appliedSecrets?: string | undefined;
      redeploy?: "provisioning" | "building";
    }
  /** Sent before the call: a start asked at `at`, or a stop over by `settlesAt`, even if the answer is lost. */
  | { type: "powerRequested"; action: PowerAction; at: number; settlesAt?: number }
  | { type: "powerAccepted"; action: PowerAction }
  | { type: "rebuildAccepted" }
  /** The app read after a build trigger: its buildId is the new build. */
  | { type: "buildStarted"; app: ServiceApp }
  | { type: "deleted" }
  /** A delete refused while the app still stops: the next look is when the stop should be over. */
  | { type: "stillStopping"; settlesAt: number }
  /** Moved (`app` in its new project), or not in the old project any more (`app` unknown): read it at `at`. */
  | { type: "moved"; app: ServiceApp | undefined; at: number };

/**
 * What each action changes at the service: the skeleton holds back what the management policies or
 * a pause don't allow (a restart or rebuild request waits with its claim; estimates, adoptions and
 * events change nothing).
 */
export const appChanges: { readonly [T in AppAction["type"]]: ActionChange } = {
  claim: "update",
  create: "create",
  update: "update",
  start: "update",
  stop: "update",
  restart: "update",
  triggerBuild: "update",
  delete: "delete",
  move: "update",
  reportBuildLog: "none",
};
