import type { KubeObject } from "../../runtime/index.ts";
import { ownedEntry } from "./owned.ts";

// The calls a cached resource holds, read without parsing it: what another resource's reconcile
// needs of them (a ServerOrder's fold keeps every order an open call could still be looking for).

/** An intent as any cached object records it (not parsed: only what is looked at). */
export interface IntentRef {
  key?: unknown;
  operation?: unknown;
  state?: unknown;
  since?: unknown;
}

/** The calls a resource holds: in its status, and in its annotation (a restore not reconciled yet). */
export function intentsHeld(object: KubeObject): IntentRef[] {
  return [...statusIntents(object), ...annotatedIntents(object)];
}

/** The calls a resource's reconciles recorded in its status: those it acts on. */
function statusIntents(object: KubeObject): IntentRef[] {
  return intentsIn((object.status as { intents?: unknown } | undefined)?.intents);
}

function annotatedIntents(object: KubeObject): IntentRef[] {
  return intentsIn(ownedEntry(object, "intents"));
}

function intentsIn(value: unknown): IntentRef[] {
  return Array.isArray(value) ? value.filter((i): i is IntentRef => typeof i === "object" && i !== null) : [];
}
