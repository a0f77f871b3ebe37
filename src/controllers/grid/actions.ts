import type { CreateGridInput, Grid as ServiceGrid } from "../../hosting/index.ts";
import type { IntentCall } from "../skeleton/intents.ts";
import type { ActionChange } from "../skeleton/kind.ts";

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

/**
 * What each action changes at the service: the skeleton holds back what the management policies or
 * a pause don't allow (a restart or rebuild request waits with its claim; estimates, adoptions and
 * events change nothing).
 */
export const gridChanges: { readonly [T in GridAction["type"]]: ActionChange } = {
  create: "create",
  adopt: "none",
  delete: "delete",
};
