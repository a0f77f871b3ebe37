import type { Grid, GridStatus } from "../../api/grid.ts";

/** What other workloads read from a Grid's output ConfigMap. */
export function gridOutputs(_grid: Grid, status: GridStatus): Record<string, string> {
  return status.gridId === undefined ? {} : { gridId: status.gridId };
}
