import type { App } from "../../api/app.ts";
import type { AppConfig } from "../../hosting/index.ts";
import { deepEqual } from "../../runtime/index.ts";
import { statedHourly } from "../service/cost.ts";
import { formatMicros, toMicros } from "../service/spend.ts";
import type { SpendAsk } from "../service/spend-ledger.ts";
import type { AppAction } from "./actions.ts";
import type { AppKnowledge, ExternalApp } from "./memory.ts";

/** What sizes an app's nodes: the service prices them only once they run, and publishes no price list. */
type Sizing = Pick<Partial<AppConfig>, "hardware" | "volumes">;

const notPriced =
  "the service states what an app costs only once it runs, and names no price for spec.hardware or spec.volumes";

/**
 * What an action makes the App cost per hour, for the namespace's SpendLimit. The service prices
 * an app only once it runs: a node's price is its stated cost ÷ the nodes running, for the sizing
 * (hardware, volumes) it runs at. So:
 * - create, start, and a restart that starts compute (the app stopped, deferred or with no node
 *   running): `appReserve` per instance of `instances.max` when the app is of the service's default
 *   size (no hardware, no volumes); unpriced when it is sized (nothing states that size's price);
 * - an update on an app that runs or is on its way: a raise of its instance bounds, or a new build
 *   source, at the node price × the max it may run (the reserve per instance when no node runs yet
 *   and the app is of default size); a change of hardware or volumes that may cost more (a key
 *   added, raised, removed or not a number; a volume added or grown) is unpriced;
 * - nothing on a stopped app (its start is checked) and nothing for a stop, delete or move.
 * Pure.
 */
export function appSpend(action: AppAction, app: App, knowledge: AppKnowledge): SpendAsk | undefined {
  const instances = app.spec.instances?.max ?? 1;
  const external = knowledge.external;
  switch (action.type) {
    case "create":
      return starting(action.body.config, instances);
    case "start":
      return starting(external.app?.config ?? {}, instances);
    case "restart":
      return startsCompute(external) ? starting(external.app?.config ?? {}, instances) : undefined;
    case "update":
      return updated(action, external);
    default:
      return undefined;
  }
}

/** A create or start: the reserve per instance at the service's default size; sized, unpriced. */
function starting(config: Sizing, instances: number): SpendAsk {
  return sized(config) ? { unpriced: notPriced } : { reserveInstances: instances };
}

/** A restart starts compute when no node runs (stopped, deferred, blocked): priced as a start. */
function startsCompute(external: ExternalApp): boolean {
  const running = external.status?.nodes.filter((n) => n.state === "running").length ?? 0;
  return external.status?.targetState === "stopped" || running === 0;
}

function sized(config: Sizing): boolean {
  return Object.keys(config.hardware ?? {}).length > 0 || (config.volumes ?? []).length > 0;
}

function updated(
  action: Extract<AppAction, { type: "update" }>,
  external: ExternalApp,
): SpendAsk | undefined {
  const before = external.app?.config;
  // Stopped (or stopping) at the service: an update starts nothing; the start is checked.
  if (before === undefined || external.status?.targetState === "stopped") return undefined;
  const patch = action.patch.config ?? {};
  const after = patch.instances ?? before.instances;
  const more = after.min > before.instances.min || after.max > before.instances.max;
  const resized = mayCostMore(before, patch);
  if (resized !== undefined) return { unpriced: `${resized}, and ${notPriced}` };
  if (!more && !action.fields.includes("source")) return undefined;
  const perNode = nodePrice(external);
  if (perNode !== undefined) return { priced: formatMicros(perNode * BigInt(Math.max(1, after.max))) };
  return sized(before)
    ? { unpriced: `no node runs yet to tell its price, and ${notPriced}` }
    : { reserveInstances: after.max };
}

/** What in a hardware or volumes change may cost more ("spec.hardware.gpu goes from 0 to 4"), if anything. */
function mayCostMore(before: AppConfig, patch: Sizing): string | undefined {
  for (const [key, value] of Object.entries(patch.hardware ?? {})) {
    const was = before.hardware[key];
    if (deepEqual(value, was)) continue;
    const lower = typeof value === "number" && typeof was === "number" && value <= was;
    if (!lower)
      return `spec.hardware.${key} goes from ${String(was ?? "unset")} to ${String(value ?? "unset")}`;
  }
  if (patch.volumes === undefined) return undefined;
  const grown = patch.volumes.find((v) => {
    const was = before.volumes.find((w) => w.name === v.name);
    return was === undefined || v.sizeGb > was.sizeGb;
  });
  return grown === undefined ? undefined : `volume ${grown.name} is added or grown`;
}

/** What one running node costs per hour, rounded up: a raise is never let through on a low guess. */
function nodePrice(external: ExternalApp): bigint | undefined {
  const stated = external.status === undefined ? undefined : statedHourly(external.status);
  const amount = stated === undefined ? undefined : toMicros(stated.amount);
  const running = external.status?.nodes.filter((n) => n.state === "running").length ?? 0;
  if (amount === undefined || running === 0) return undefined;
  return (amount + BigInt(running) - 1n) / BigInt(running);
}
