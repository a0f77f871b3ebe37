import type { Grid } from "../../api/grid.ts";
import type { Intent } from "../../api/intents.ts";
import { inputOf, type Settlement, settleCreate } from "../skeleton/intents.ts";
import type { GridAction, GridFact } from "./actions.ts";
import type { GridKnowledge } from "./memory.ts";
import { createGridKey, gridBody } from "./plan.ts";

/** How a Grid's Pending create ended, from the lookup by name observe made. Pure. */
export function settleGridIntent(
  intent: Intent,
  knowledge: GridKnowledge,
  _grid: Grid,
  _now: Date,
): Settlement<GridFact> {
  if (intent.operation !== "createGrid") {
    return { outcome: "unsettled", message: "berth does not know this operation; check the service by hand" };
  }
  return settleCreate(knowledge.grid !== undefined ? [knowledge.grid] : knowledge.found, "grid");
}

/**
 * A create the lookup found no trace of, sent again, identical, so the service's answer settles it
 * before a deletion releases (see `cleanup.ts`): only when today's spec rebuilds the very request
 * its key was made from. Pure.
 */
export function reaskGridIntent(intent: Intent, grid: Grid): GridAction | undefined {
  if (intent.operation !== "createGrid") return undefined;
  const body = gridBody(grid);
  const refused = intent.attempt - 1;
  const same = [undefined, grid.status?.gridId].some(
    (replaces) => createGridKey(grid, body, replaces, refused) === intent.key,
  );
  if (!same) return undefined;
  const call = {
    operation: intent.operation,
    input: inputOf(intent) ?? {},
    attempt: intent.attempt,
    key: intent.key,
  };
  return { type: "create", body, idempotencyKey: intent.key, intent: call };
}
