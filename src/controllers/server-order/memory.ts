import type { Estimate, Me, Order, Server } from "../../hosting/index.ts";
import type { GridIdsResult } from "../grid/grid-ref.ts";
import type { Failure, Problem } from "../service/failure.ts";
import type { Owner } from "../service/ownership.ts";
import type { Catalog } from "./catalog.ts";

/** The service's answer to a dry run, with the Idempotency-Key it was asked under. */
export interface KnownEstimate {
  idempotencyKey: string;
  estimate: Estimate["estimate"];
}

/** What the ServerOrder controller remembers about one ServerOrder between reconciles. */
export interface OrderMemory {
  estimate: KnownEstimate | undefined;
  /** The order at the service as last read or answered. */
  order: Order | undefined;
  /** The service answered 404 for the recorded order. */
  gone: boolean;
  /** The order's servers as last listed (for `order`). */
  servers: Server[] | undefined;
  /** When the order is next read: its pollAfterSec while in flight, the drift check once settled. */
  orderDueAt: number | undefined;
  readGeneration: number | undefined;
  servedRequest: string | undefined;
  /** The growth orders (status.growthOrders) as last read or answered. */
  growthOrders: Order[];
  /** The last power call and what reading the servers back showed. */
  power: PowerAttempt | undefined;
  /** The replacement orders (status.replacements) as last read or answered. */
  replacementOrders: Order[];
}

/** A hibernate or wake call, followed until the servers are listed again. */
export interface PowerAttempt {
  action: "hibernate" | "wake";
  addresses: string[];
  /** Clock time of the call. */
  sentAt: number;
  /** Calls in a row the service did not act on (still in the state the call was to leave). */
  failures: number;
  /** Set once a read-back showed the call not acted on: call again no earlier than this. */
  retryAt: number | undefined;
}

export function newOrderMemory(): OrderMemory {
  return {
    estimate: undefined,
    order: undefined,
    gone: false,
    servers: undefined,
    orderDueAt: undefined,
    readGeneration: undefined,
    servedRequest: undefined,
    growthOrders: [],
    power: undefined,
    replacementOrders: [],
  };
}

/** What is kept of a reconcile's knowledge for the next one (per-reconcile reads are dropped). */
export function rememberOrder(knowledge: OrderKnowledge): OrderMemory {
  const { estimate, order, gone, servers, orderDueAt, readGeneration, servedRequest } = knowledge;
  const { growthOrders, power, replacementOrders } = knowledge;
  return {
    estimate,
    order,
    gone,
    servers,
    orderDueAt,
    readGeneration,
    servedRequest,
    growthOrders,
    power,
    replacementOrders,
  };
}

/** Everything known of one ServerOrder during a reconcile: the memory it started from and what observe read. */
export type OrderKnowledge = OrderObserved & OrderMemory;

/** Everything `planServerOrder` needs besides the ServerOrder itself. */
export interface OrderObserved {
  problem: Problem | undefined;
  me: Me | undefined;
  /** The key's user and credential hash, once connected. */
  identity?: Owner | undefined;
  /** The grids the servers join (spec.gridIds and the resolved gridRefs), or why they are not known yet. */
  grids: GridIdsResult;
  /** Read only while an order may still be placed. */
  catalog: Catalog | undefined;
  estimate: KnownEstimate | undefined;
  order: Order | undefined;
  gone: boolean;
  servers: Server[] | undefined;
  /** Orders an earlier order call with an unknown outcome may have placed; undefined when not looked. */
  candidates: Order[] | undefined;
  /** The service refused the real order just now (a definite answer: nothing was placed). */
  refused: Failure | undefined;
  requestId: string | undefined;
  /** The growth orders recorded in status, as last read (none when absent). */
  growthOrders?: Order[] | undefined;
  /** Orders a growth call with an unknown outcome (status.growing) may have placed; undefined when not looked. */
  growthCandidates?: Order[] | undefined;
  /** The last power call, when one is followed. */
  power?: PowerAttempt | undefined;
  /** The replacement orders recorded in status, as last read (none when absent). */
  replacementOrders?: Order[] | undefined;
  /**
   * Per Pending intent (by operation), the orders its call may have placed, looked up on the
   * intent's own input; absent while not looked up.
   */
  lookups?: Record<string, Order[]> | undefined;
  /**
   * Recorded growth and replacement orders settled long enough ago whose servers are all gone (the
   * listing just read showed none): their status entries may be folded. Set only by a read.
   */
  foldable?: string[] | undefined;
  /** The service refused a replace call just now (a definite answer: nothing was replaced). */
  replaceRefused?: Failure | undefined;
}
