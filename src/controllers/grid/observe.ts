import type { Grid } from "../../api/grid.ts";
import { finalizer } from "../../api/meta.ts";
import { isHostingError } from "../../hosting/index.ts";
import { pendingRequest, reconcileRequest } from "../shared/annotations.ts";
import { connectForResource } from "../shared/connect.ts";
import type { ControllerDeps } from "../shared/deps.ts";
import type { Failure } from "../shared/failure.ts";
import type { Connection } from "../shared/hosting-access.ts";
import { createdCandidates, heldByOthers } from "../shared/lookup.ts";
import { deferFirstRead, isSettled, jittered } from "../shared/schedule.ts";
import { scopeProblem } from "../shared/scopes.ts";
import { serverOrdersUsing } from "./dependents.ts";
import { gridType } from "./kind.ts";
import type { GridMemory, GridObserved } from "./observed.ts";
import { gridName } from "./plan.ts";

export interface GridObservation {
  observed: GridObserved;
  connection: Connection | undefined;
  failure: Failure | undefined;
}

/** Reads credentials and identity, and the grid at the service when due. */
export async function observeGrid(
  deps: ControllerDeps,
  grid: Grid,
  memory: GridMemory,
): Promise<GridObservation> {
  const observed: GridObserved = {
    problem: undefined,
    me: undefined,
    grid: memory.grid,
    gone: memory.gone,
    clusterOrders: [],
    refusedCreates: memory.refusedCreates,
    found: undefined,
    requestId: grid.status?.lastRequestId,
  };
  const result: GridObservation = { observed, connection: undefined, failure: undefined };
  const deleting = grid.metadata.deletionTimestamp !== undefined;
  const releasing =
    deleting &&
    (grid.spec.deletionPolicy === "Orphan" || !(grid.metadata.finalizers ?? []).includes(finalizer));
  if (releasing || (grid.spec.suspend && !deleting)) return result;
  if (deleting) {
    observed.clusterOrders = serverOrdersUsing(deps, grid, grid.status?.gridId ?? memory.grid?.id);
    if (observed.clusterOrders.length > 0) return result;
  }
  // Deleting a Grid with no recorded ID still needs the lookup: a create may have happened unheard.
  const unknownId = (grid.status?.gridId ?? grid.spec.gridId ?? memory.grid?.id) === undefined;
  await connectForResource(deps, grid, result, "reading the grid at the service", async (connection) => {
    if (!deleting || unknownId) await readService(deps, grid, memory, observed, connection);
  });
  observed.grid = memory.grid;
  observed.gone = memory.gone;
  return result;
}

async function readService(
  deps: ControllerDeps,
  grid: Grid,
  memory: GridMemory,
  observed: GridObserved,
  { client, me }: Connection,
): Promise<void> {
  const missing = scopeProblem(me, ["pools:read"], "read the grid");
  if (missing !== undefined) {
    observed.problem = missing;
    return;
  }
  const note = (requestId: string | undefined) => {
    if (requestId !== undefined) observed.requestId = requestId;
  };
  const gridId = grid.status?.gridId ?? grid.spec.gridId ?? memory.grid?.id;
  if (gridId === undefined) {
    // The finalizer goes on before the first create: with it, a create may have happened unheard.
    const mayExist = memory.uncertainCreate || (grid.metadata.finalizers ?? []).includes(finalizer);
    if (!mayExist) return;
    const name = gridName(grid);
    const found = await createdCandidates(
      (cursor) => client.listGrids({ name, cursor }),
      heldByOthers(deps, gridType, grid.metadata.uid, "gridId"),
      grid.metadata.creationTimestamp,
    );
    observed.found = found;
    memory.uncertainCreate = found.length > 1;
    return;
  }
  const now = deps.now();
  const generation = grid.metadata.generation ?? 0;
  const request = pendingRequest(reconcileRequest(grid), grid.status?.lastHandledReconcileAt);
  const settled = isSettled(grid, generation) && request === undefined;
  const timing = { now, intervalMs: deps.settings.driftIntervalMs, random: deps.random };
  if (memory.grid === undefined && deferFirstRead(memory, { generation, settled }, timing, "driftDueAt"))
    return;
  const due =
    (memory.grid !== undefined && memory.grid.id !== gridId) ||
    memory.readGeneration !== generation ||
    (request !== undefined && request !== memory.servedRequest) ||
    (memory.driftDueAt !== undefined && memory.driftDueAt <= now);
  if (!due) return;
  // A drift check, or the spread first read after a restart: after the user's work.
  const background = memory.readGeneration === generation && request === undefined;
  try {
    const read = await client.getGrid(gridId, { priority: background ? "background" : "user" });
    note(read.$metadata.requestId);
    memory.grid = read;
    memory.gone = false;
  } catch (error) {
    if (!isHostingError(error) || error.code !== "not_found") throw error;
    note(error.requestId);
    memory.grid = undefined;
    memory.gone = true;
  }
  memory.readGeneration = generation;
  memory.servedRequest = reconcileRequest(grid);
  memory.driftDueAt = now + jittered(deps.settings.driftIntervalMs, deps.random);
}
