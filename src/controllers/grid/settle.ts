import type { Grid } from "../../api/grid.ts";
import type { Intent } from "../../api/intents.ts";
import { type Settlement, settleCreate } from "../skeleton/intents.ts";
import type { GridFact } from "./actions.ts";
import type { GridKnowledge } from "./memory.ts";

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
