import type { Me, Grid as ServiceGrid } from "../../hosting/index.ts";
import type { Problem } from "../service/failure.ts";
import type { Owner } from "../service/ownership.ts";
import { type Met, newReadMemory, type ReadMemory, readMemoryOf } from "../skeleton/memory.ts";

/** What the Grid controller remembers about one Grid between reconciles. */
export interface GridMemory extends ReadMemory {
  /** The grid at the service as last read or answered; undefined when unknown. */
  grid: ServiceGrid | undefined;
}

/** See `newReadMemory`. */
export function newGridMemory(met?: Met): GridMemory {
  return { ...newReadMemory(met), grid: undefined };
}

/** What is kept of a reconcile's knowledge for the next one. */
export function rememberGrid(knowledge: GridKnowledge): GridMemory {
  return { ...readMemoryOf(knowledge), grid: knowledge.grid };
}

/** Everything known of one Grid during a reconcile: the memory it started from and what observe read. */
export type GridKnowledge = GridObserved & GridMemory;

/** Everything `planGrid` needs besides the Grid itself. */
export interface GridObserved {
  problem: Problem | undefined;
  me: Me | undefined;
  /** The key's user and credential hash, once connected. */
  identity?: Owner | undefined;
  grid: ServiceGrid | undefined;
  gone: boolean;
  /** ServerOrders and Apps that use the grid (`ServerOrder ns/name`): a deletion waits for them. */
  clusterUsers: string[];
  /**
   * After an uncertain create: grids of this name made since the Grid resource and claimed by no
   * other Grid resource. Undefined when not looked up.
   */
  found: ServiceGrid[] | undefined;
  requestId: string | undefined;
  /** The next drift check (epoch ms), from memory. */
  driftDueAt?: number | undefined;
  /** Creates the service refused for certain: the next create's key moves on (see `createAttempt`). */
  refusedCreates?: number;
}
