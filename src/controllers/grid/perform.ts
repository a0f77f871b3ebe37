import type { Grid } from "../../api/grid.ts";
import { isHostingError } from "../../hosting/index.ts";
import { quoteRequest } from "../skeleton/condition-changes.ts";
import { clientOf, type ObjectFact, type PerformContext } from "../skeleton/kind.ts";
import type { GridAction, GridFact } from "./actions.ts";
import type { GridKnowledge } from "./memory.ts";

export const doingForGrid: Record<GridAction["type"], string> = {
  adopt: "adopting the grid",
  create: "creating the grid",
  delete: "deleting the grid",
};

/** Carries out one action: a call to the service, or an adoption, with an event for each change. */
export async function* performGrid(
  action: GridAction,
  { deps, object, resource: grid, connection }: PerformContext<Grid, GridKnowledge>,
): AsyncGenerator<GridFact | ObjectFact> {
  const event = (reason: string, requestId: string | undefined, note: string) =>
    deps.recorder.record(object, "Normal", reason, quoteRequest(requestId, note), action.type);
  const client = () => clientOf({ connection });
  switch (action.type) {
    case "adopt":
      yield { type: "known", grid: action.grid };
      event("Adopted", undefined, `adopted grid ${action.grid.id}, created by an earlier attempt`);
      return;
    case "create": {
      const created = await client().createGrid(action.body, { idempotencyKey: action.idempotencyKey });
      const { requestId } = created.$metadata;
      yield { type: "known", grid: created, generation: grid.metadata.generation ?? 0 };
      yield { type: "answered", requestId };
      event("Created", requestId, `created grid ${created.name} (${created.id})`);
      return;
    }
    case "delete": {
      try {
        const { requestId } = await client().deleteGrid(action.gridId);
        yield { type: "answered", requestId };
        event("Deleted", requestId, `deleted grid ${action.gridId}`);
      } catch (error) {
        if (!isHostingError(error) || error.code !== "not_found") throw error;
      }
      yield { type: "deleted" };
      return;
    }
  }
}
