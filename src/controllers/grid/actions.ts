import type { CreateGridInput, Grid as ServiceGrid } from "../../hosting/index.ts";
import type { IntentCall } from "../skeleton/intents.ts";

/** What `act` does at the service or on the Grid, in order. */
export type GridAction =
  | { type: "create"; body: CreateGridInput; idempotencyKey: string; intent: IntentCall }
  /** Take the grid found after an uncertain create as this Grid's (no call). */
  | { type: "adopt"; grid: ServiceGrid }
  | { type: "delete"; gridId: string };

/** What a Grid's action taught about the grid at the service. */
export type GridFact =
  /** The grid is this Grid's: found after an uncertain create, or created (read at `generation`). */
  { type: "known"; grid: ServiceGrid; generation?: number } | { type: "deleted" };
