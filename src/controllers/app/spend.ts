import type { App } from "../../api/app.ts";
import { statedHourly } from "../service/cost.ts";
import { formatMicros, toMicros } from "../service/spend.ts";
import type { SpendAsk } from "../service/spend-ledger.ts";
import type { AppAction } from "./actions.ts";
import type { AppKnowledge, ExternalApp } from "./memory.ts";

/**
 * What an action makes the App cost per hour, for the namespace's SpendLimit. The service prices
 * an app only once it runs, and starts every app it creates (spec.stopped or not), so a create or
 * start is counted at the SpendLimit's appReserve per instance of spec.instances.max until the
 * app's stated cost replaces it. A raise of instances.min or .max on an app that runs or is on its
 * way is counted at its node price (the stated cost ÷ the nodes running) × the new max, the most it
 * may run; the reserve per instance when no node runs to tell the price. Pure.
 */
export function appSpend(action: AppAction, app: App, knowledge: AppKnowledge): SpendAsk | undefined {
  const instances = app.spec.instances?.max ?? 1;
  switch (action.type) {
    case "create":
    case "start":
      return { reserveInstances: instances };
    case "update":
      return raised(action, knowledge.external);
    default:
      return undefined;
  }
}

function raised(action: Extract<AppAction, { type: "update" }>, external: ExternalApp): SpendAsk | undefined {
  const before = external.app?.config.instances;
  const after = action.patch.config?.instances;
  if (!action.fields.includes("instances") || after === undefined || before === undefined) return undefined;
  if (after.min <= before.min && after.max <= before.max) return undefined;
  // Stopped (or stopping) at the service: a raise starts nothing; the start is checked.
  if (external.status?.targetState === "stopped") return undefined;
  const perNode = nodePrice(external);
  return perNode === undefined
    ? { reserveInstances: after.max }
    : { priced: formatMicros(perNode * BigInt(Math.max(1, after.max))) };
}

/** What one running node costs per hour, rounded up: a raise is never let through on a low guess. */
function nodePrice(external: ExternalApp): bigint | undefined {
  const stated = external.status === undefined ? undefined : statedHourly(external.status);
  const amount = stated === undefined ? undefined : toMicros(stated.amount);
  const running = external.status?.nodes.filter((n) => n.state === "running").length ?? 0;
  if (amount === undefined || running === 0) return undefined;
  return (amount + BigInt(running) - 1n) / BigInt(running);
}
