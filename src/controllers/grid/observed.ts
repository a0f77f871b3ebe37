import type { Me, Grid as ServiceGrid } from "../../hosting/index.ts";
import type { Problem } from "../shared/failure.ts";

/** What the Grid controller remembers about one Grid between reconciles. */
export interface GridMemory {
  /** The grid at the service as last read or answered; undefined when unknown. */
  grid: ServiceGrid | undefined;
  /** The service answered 404 for the recorded grid. */
  gone: boolean;
  driftDueAt: number | undefined;
  readGeneration: number | undefined;
  servedRequest: string | undefined;
  /** A create failed in a way the service may have acted on: look the grid up before creating again. */
  uncertainCreate: boolean;
  readySeen: boolean;
}

export function newGridMemory(): GridMemory {
  return {
    grid: undefined,
    gone: false,
    driftDueAt: undefined,
    readGeneration: undefined,
    servedRequest: undefined,
    uncertainCreate: false,
    readySeen: false,
  };
}

/** Everything `planGrid` needs besides the Grid itself. */
export interface GridObserved {
  problem: Problem | undefined;
  me: Me | undefined;
  grid: ServiceGrid | undefined;
  gone: boolean;
  /**
   * After an uncertain create: grids of this name made since the Grid resource and claimed by no
   * other Grid resource. Undefined when not looked up.
   */
  found: ServiceGrid[] | undefined;
  requestId: string | undefined;
}
