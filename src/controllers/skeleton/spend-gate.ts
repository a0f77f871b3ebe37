import type { KubeObject } from "../../runtime/index.ts";
import type { ControllerDeps } from "../service/deps.ts";
import { Reason } from "../service/reasons.ts";
import type { SpendAsk, SpendRoom } from "../service/spend-ledger.ts";

/** What a kind says an action would add to its namespace's spend (see `Kind.spend`). */
export interface SpendOf<R, K, A> {
  spend?(action: A, resource: R, knowledge: K): SpendAsk | undefined;
  doing: (action: A) => string;
}

/** The gate's word on one action: refused (the Stalled message), or on, with the room it took if priced. */
export type SpendGate = { refused: string } | { room: string | undefined; spendRoom?: SpendRoom | undefined };

/**
 * Before an action that adds spend: the namespace's SpendLimits decide (`SpendLedger`). On when it
 * may go (no limit, or its room recorded: `room`, what the resource is counted at once it acts,
 * which its intent records); otherwise the message of the Stalled refusal.
 */
export async function spendGate<R, K, A>(
  kind: SpendOf<R, K, A>,
  deps: ControllerDeps,
  object: KubeObject,
  at: { action: A; resource: R; knowledge: K },
): Promise<SpendGate> {
  const ask = kind.spend?.(at.action, at.resource, at.knowledge);
  if (ask === undefined || deps.spend === undefined) return { room: undefined };
  const { namespace = "default", name, uid = "" } = object.metadata;
  const decision = await deps.spend.admit({
    namespace,
    resource: `${object.kind ?? "resource"}/${name}`,
    uid,
    ask,
    doing: kind.doing(at.action),
  });
  return decision.admitted
    ? { room: decision.room, spendRoom: decision.spendRoom }
    : { refused: decision.message };
}

/** The Stalled refusal's problem. */
export function spendProblem(message: string) {
  return { stalled: true, reason: Reason.SpendLimitExceeded, message };
}
