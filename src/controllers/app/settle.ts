import type { App } from "../../api/app.ts";
import type { Intent } from "../../api/intents.ts";
import { inputOf, type Settlement, settleCreate } from "../skeleton/intents.ts";
import type { AppFact } from "./actions.ts";
import type { AppKnowledge } from "./memory.ts";

/**
 * How an App's Pending intent ended, from what observe looked up on the intent's own input. A
 * restart or build trigger can't be looked up and is not idempotent: it counts as done, never repeated.
 */
export function settleAppIntent(
  intent: Intent,
  knowledge: AppKnowledge,
  _app: App,
  now: Date,
): Settlement<AppFact> {
  switch (intent.operation) {
    case "moveApp":
      return settleMove(intent, knowledge, now);
    case "createApp": {
      const { app, gone } = knowledge.external;
      const found = app !== undefined && !gone ? [app] : knowledge.lookedUpNothing === true ? [] : undefined;
      return settleCreate(found, "app");
    }
    case "restartApp":
    case "triggerBuild":
      return { outcome: "acted", facts: [], note: "it can't be looked up and is never sent twice" };
    default:
      return {
        outcome: "unsettled",
        message: "berth does not know this operation; check the service by hand",
      };
  }
}

function settleMove(intent: Intent, knowledge: AppKnowledge, now: Date): Settlement<AppFact> {
  const { appId, from, to } = inputOf<{ appId: string; from: string; to: string }>(intent) ?? {};
  const app = knowledge.external.app;
  switch (knowledge.moveLookup) {
    case undefined:
      return { outcome: "looking", note: `looking for app ${appId} in projects ${to} and ${from}` };
    case "to":
      return {
        outcome: "acted",
        facts: app === undefined ? [] : [{ type: "moved", app, at: now.getTime() }],
        note: `app ${appId} is in project ${to}`,
      };
    case "from":
      return { outcome: "notActed", note: `app ${appId} is still in project ${from}` };
    case "neither":
      return {
        outcome: "unsettled",
        message:
          `app ${appId} is in neither project ${from} nor ${to} (or the key can't see it): find it at the service, ` +
          "then set spec.projectRef/projectId to the project that holds it; berth creates nothing meanwhile",
      };
  }
}
