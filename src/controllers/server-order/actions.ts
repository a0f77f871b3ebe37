import type { Change } from "../../api/policies.ts";
import type { ServerOrderStatus } from "../../api/server-order.ts";
import type { Order, ProvisionInput } from "../../hosting/index.ts";
import type { IntentCall } from "../skeleton/intents.ts";
import type { ActionChange } from "../skeleton/kind.ts";
import type { KnownEstimate } from "./memory.ts";

/** What `act` does at the service or on the ServerOrder, in order. */
export type OrderAction =
  /**
   * A dry run (changes nothing) before the order it `prepares` (the first order: create; a growth
   * order: update): a policy or a pause that holds the order holds its dry run too.
   */
  | { type: "estimate"; input: ProvisionInput; idempotencyKey: string; prepares: Change }
  /** Order (the skeleton records the intent first), then record the order's ID. */
  | {
      type: "order";
      input: ProvisionInput;
      intent: IntentCall;
      /** The fresh estimate's hourly cost: what the namespace's SpendLimit is checked against. */
      hourlyCost: string;
    }
  /** Take the order an earlier call placed as this ServerOrder's, recording its ID at once (no call). */
  | { type: "adopt"; order: Order }
  | { type: "deprovision"; orderId: string; addresses: string[] }
  /** Order the difference (the intent recorded first), then record the growth order. */
  | {
      type: "growOrder";
      input: ProvisionInput;
      intent: IntentCall;
      target: number;
      /** The estimate for all the servers after the growth, recorded with the growth order. */
      estimate?: ServerOrderStatus["estimate"];
    }
  /** Record an order a growth call with a lost answer placed (no call). */
  | { type: "adoptGrowth"; order: Order }
  /** Deprovision `addresses` (spec.count was lowered), then record them in status.removing. */
  | { type: "shrink"; addresses: string[]; alreadyRecorded: boolean; intent: IntentCall }
  | { type: "power"; action: "hibernate" | "wake"; addresses: string[]; intent: IntentCall }
  | ReplaceAction;

/** Replacing a server (berth.dev/replace-server or spec.autoReplace), or refusing an annotation. */
export type ReplaceAction =
  /** Replace `address` (the intent recorded first), then record the replacement. */
  | {
      type: "replace";
      address: string;
      /** The annotation value asking for it; absent for spec.autoReplace. */
      request: string | undefined;
      /** The server's state when planned (for the event: a failed one is a Warning). */
      state: string;
      /** This replacement was sent before and its answer is not recorded. */
      again: boolean;
      intent: IntentCall;
    }
  /** A Warning event (the plan's status holds the echo and the Replaced condition): nothing is called. */
  | { type: "refuseReplace"; message: string };

/** What a ServerOrder's action taught about its orders and servers at the service. */
export type OrderFact =
  /** A dry run answered under its Idempotency-Key. */
  | { type: "estimated"; estimate: KnownEstimate }
  /** The order this ServerOrder follows, answered or adopted (at `generation`): read next at `dueAt`. */
  | { type: "following"; order: Order; generation: number; dueAt: number }
  /** The service took a call on these servers: they are in `state` until the next listing shows otherwise. */
  | { type: "passing"; addresses: string[]; state: string }
  /** A growth order recorded: placed by a call just now or by one whose answer was lost. */
  | { type: "grown"; order: Order }
  /** A replacement's order, as the replace call answered it. */
  | { type: "replacement"; order: Order }
  /** A hibernate or wake call on these servers went out at `sentAt`. */
  | { type: "powerSent"; action: "hibernate" | "wake"; addresses: string[]; sentAt: number }
  /** Look at the orders again no later than `at` (epoch ms). */
  | { type: "due"; at: number };

/**
 * What each action changes at the service: the skeleton holds back what the management policies or
 * a pause don't allow (a restart or rebuild request waits with its claim; estimates, adoptions and
 * events change nothing).
 */
export const orderChanges: { readonly [T in OrderAction["type"]]: ActionChange } = {
  estimate: "none",
  order: "create",
  adopt: "none",
  deprovision: "delete",
  growOrder: "update",
  adoptGrowth: "none",
  shrink: "update",
  power: "update",
  replace: "update",
  refuseReplace: "none",
};
