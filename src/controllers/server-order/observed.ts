import type { Estimate, Me, Order, Server } from "../../hosting/index.ts";
import type { GridIdsResult } from "../grid/grid-ref.ts";
import type { Failure, Problem } from "../shared/failure.ts";
import type { Owner } from "../shared/ownership.ts";
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
  readySeen: boolean;
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
    readySeen: false,
  };
}

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
}
