import type { z } from "zod";
import type { ConditionChange } from "../../api/conditions.ts";
import type { Intent } from "../../api/intents.ts";
import type { Change } from "../../api/policies.ts";
import type { HostingClient, HostingError } from "../../hosting/index.ts";
import type { Deferral, KubeObject, ResourceType } from "../../runtime/index.ts";
import type { ControllerDeps } from "../service/deps.ts";
import type { Doing, Failure, Problem } from "../service/failure.ts";
import type { Connection, HostingAccess } from "../service/hosting-access.ts";
import type { SpendAsk } from "../service/spend-ledger.ts";
import type { IntentCall, Settlement } from "./intents.ts";
import type { Release } from "./object.ts";
import type { OwnedField } from "./owned.ts";
import type { Resource, WithConditions } from "./resource.ts";

/** What an action does at the service: a change a policy or a pause may hold back, or nothing (`none`). */
export type ActionChange = Change | "none";

/** The parts of every kind's knowledge the skeleton reads and keeps current. */
export interface BaseKnowledge {
  /** Why nothing can be done now (credentials, references, a failed read). */
  problem: Problem | undefined;
  /** X-Request-Id of the last hosting call, quoted in status. */
  requestId: string | undefined;
}

/** What `observe` found: the knowledge `plan` starts from, the connection to act with, a failed read. */
export interface Observation<K> {
  knowledge: K;
  connection: Connection | undefined;
  /** A read failed (retried with backoff unless stalled); `knowledge.problem` says so too. */
  failure: Failure | undefined;
  /**
   * The budget turned a read away after others answered: what they taught is kept, and the
   * reconcile comes back at its turn for the rest.
   */
  deferred?: Deferral | undefined;
}

/**
 * An action a plan asks for. One that spends or releases carries its `intent`: the skeleton records
 * it in status before `perform` runs, and settles it by a lookup if its outcome is lost.
 */
export interface Action {
  type: string;
  intent?: IntentCall | undefined;
  /**
   * A call that changes nothing itself but only prepares a change (a dry run before an order): the
   * skeleton holds it back with that change, so a policy or a pause that holds the order holds its
   * estimate too.
   */
  prepares?: Change | undefined;
}

/** A plan: the actions to perform now and the status to write once they are done. */
export interface BasePlan<A> {
  actions: A[];
  status: WithConditions;
  /** A person must act: retried slowly, not with backoff. */
  stalled: boolean;
  /** When to look again by itself (epoch ms), for the default schedule. */
  dueAt?: number | undefined;
  /**
   * Going away: once the actions are done nothing is left at the service (or Orphan leaves it), and
   * the skeleton releases the finalizer, with a Warning event for what it leaves to a person.
   */
  release?: Release | undefined;
}

/** What `perform` learned about the resource object itself; the skeleton keeps it. */
export type ObjectFact =
  /** A hosting call answered with this request ID. */
  | { type: "answered"; requestId: string | undefined }
  /**
   * Status fields that record what a call did (an order's ID): later plans see them at once, and
   * the skeleton writes them with the rest of the status, in the one write at the end.
   */
  | { type: "recorded"; status: Record<string, unknown> };

/** The fact the skeleton hands `learn` when an action's call failed. */
export interface Failed<A> {
  type: "failed";
  action: A;
  failure: Failure;
  error: HostingError;
}

/** What `perform` sees: the newest object, the resource parsed from it, and the knowledge so far. Read only. */
export interface PerformContext<R, K> {
  deps: ControllerDeps;
  object: KubeObject;
  resource: R;
  knowledge: K;
  connection: Connection | undefined;
}

/** The client an action calls the service with: observe connects before any plan that calls. */
export function clientOf({ connection }: { connection: Connection | undefined }): HostingClient {
  if (connection === undefined) throw new TypeError("calling the service needs a connection");
  return connection.client;
}

/** When the kind next looks by itself, and the knowledge to keep for that. */
export interface Schedule<K> {
  knowledge: K;
  dueAt: number | undefined;
}

/**
 * What one kind brings to the shared skeleton (`kindReconciler`): observe → plan → perform → learn
 * → plan → one status write. `plan` and `learn` are pure; `observe` and `perform` do the I/O.
 */
export interface Kind<
  R extends Resource,
  M,
  K extends BaseKnowledge,
  A extends Action,
  F,
  P extends BasePlan<A>,
> {
  type: ResourceType;
  schema: z.ZodType<R>;
  /** Plan-perform rounds one reconcile may run (default 1): the rest is planned again next time. */
  rounds?: number;
  /**
   * Reads what the plan needs, starting from the memory (none before anything was learned),
   * calling the service only through `hosting`.
   */
  observe(resource: R, memory: M | undefined, hosting: HostingAccess): Promise<Observation<K>>;
  /**
   * The next step while the resource is there (not suspended, no problem): the skeleton adds the
   * finalizer before the first action. Pure.
   */
  plan(resource: R, knowledge: K, now: Date): P;
  /**
   * The next step while the resource goes away (its finalizer held, not Orphan): what to call, and
   * `release` once nothing is left. Pure.
   */
  planCleanup(resource: R, knowledge: K, now: Date): P;
  /** The plan that calls nothing: the status with this condition change (suspend, a problem). Pure. */
  report(resource: R, knowledge: K, change: ConditionChange, now: Date): P;
  /** Carries out one action, yielding each fact as it is learned (a failure keeps the facts before it). */
  perform(action: A, context: PerformContext<R, K>): AsyncIterable<F | ObjectFact>;
  /** The knowledge after a fact. Pure. */
  learn(knowledge: K, fact: F | Failed<A>): K;
  /** What each action is, for messages ("creating the grid"). */
  doing: Doing<A>;
  /**
   * What an action would make the resource cost per hour, when it adds spend (an order, a create, a
   * start): the skeleton checks it against the namespace's SpendLimits before the call. Pure.
   */
  spend?(action: A, resource: R, knowledge: K): SpendAsk | undefined;
  /**
   * What each action changes at the service (create, update, delete) or `none` (a read, an event,
   * a record): the skeleton holds back what the management policies or a pause don't allow.
   */
  changes: { readonly [T in A["type"]]: ActionChange };
  /**
   * After the final plan: the knowledge to keep and when to look again by itself, besides retries
   * (default: the plan's `dueAt`).
   */
  schedule?(knowledge: K, plan: P, now: Date): Schedule<K>;
  /** What is kept for the next reconcile (per-reconcile reads, like the desired spec, are dropped). */
  remember(knowledge: K): M;
  /**
   * The resource waits for something in the cluster (looked at again after `polls.waitingMs`);
   * default: never.
   */
  waiting?(knowledge: K): boolean;
  /** The status field holding the external object's ID, also kept in the berth.dev/external-id annotation. */
  externalId?: string;
  /**
   * Status fields that record what the resource owns beyond its external ID (orders, removals, the
   * app's project, day-2 requests handled), kept with the owner and its open intents in the
   * berth.dev/owned annotation so a restore without status rebuilds them (see `owned.ts`).
   */
  owns?: readonly OwnedField[];
  /**
   * The external IDs a resource's status holds beyond its own (a ServerOrder's growth and
   * replacement orders): its claim covers them, so another resource naming one by its spec ID is
   * refused (see `claim.ts`). Pure.
   */
  holds?(status: unknown): string[];
  /** What the output ConfigMap (spec.outputs) holds for this status: only keys whose values are known. Pure. */
  outputs(resource: R, status: P["status"]): Record<string, string>;
  /**
   * How a Pending intent (status.intents) ended, from what `observe` looked up on the intent's own
   * input. Pure. A kind whose actions carry no intents needs none.
   */
  settle?(intent: Intent, knowledge: K, resource: R, now: Date): Settlement<F>;
  /**
   * The action that sends an intent's call again, identical (its key and input), so that the
   * service's own word settles it: a replay of what it did, in progress, or done now. While the key
   * may still act, a deletion asks so before it releases, and a plan before a call of the same
   * operation under another key (see `cleanup.ts`). Undefined when the identical call can't be
   * rebuilt. Pure.
   */
  reask?(intent: Intent, resource: R, knowledge: K): A | undefined;
}

export type { Doing } from "../service/failure.ts";
export type { Resource } from "./resource.ts";
