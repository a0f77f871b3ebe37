import type { App } from "../../api/app.ts";
import { formatMicros, toMicros } from "../service/spend.ts";
import type { SpendAsk } from "../service/spend-ledger.ts";
import type { AppAction } from "./actions.ts";
import type { AppKnowledge } from "./memory.ts";

/**
 * What an action makes the App cost per hour, for the namespace's SpendLimit. The service prices
 * an app only once it runs, so a create or start is counted at the SpendLimit's appReserve per
 * instance of spec.instances.max until the app's stated cost replaces it; a raise of
 * instances.max scales the stated cost per instance (the reserve when none is stated). Pure.
 */
export function appSpend(action: AppAction, app: App, knowledge: AppKnowledge): SpendAsk | undefined {
  const instances = app.spec.instances?.max ?? 1;
  switch (action.type) {
    case "create":
      return app.spec.stopped ? undefined : { reserveInstances: instances };
    case "start":
      return { reserveInstances: instances };
    case "update":
      return raised(action, app, knowledge);
    default:
      return undefined;
  }
}

function raised(
  action: Extract<AppAction, { type: "update" }>,
  app: App,
  knowledge: AppKnowledge,
): SpendAsk | undefined {
  const before = knowledge.external.app?.config.instances.max;
  const after = action.patch.config?.instances?.max;
  if (!action.fields.includes("instances") || after === undefined || before === undefined || after <= before)
    return undefined;
  const stated = toMicros(app.status?.cost?.hourly?.amount ?? "");
  if (stated === undefined || before <= 0) return { reserveInstances: after };
  // Rounded up per instance: a raise is never let through on a low guess.
  const perInstance = (stated + BigInt(before) - 1n) / BigInt(before);
  return { priced: formatMicros(perInstance * BigInt(after)) };
}
