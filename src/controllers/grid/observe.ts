import type { Grid } from "../../api/grid.ts";
import { finalizer } from "../../api/meta.ts";
import { isHostingError } from "../../hosting/index.ts";
import { connectForResource } from "../service/connect.ts";
import type { ControllerDeps } from "../service/deps.ts";
import type { Connection } from "../service/hosting-access.ts";
import { createdCandidates, heldByOthers } from "../service/lookup.ts";
import { scopeProblem } from "../service/scopes.ts";
import { pendingRequest, reconcileRequest } from "../skeleton/annotations.ts";
import { mayHaveCreated, pendingCreate } from "../skeleton/intents.ts";
import type { Observation } from "../skeleton/kind.ts";
import { deferFirstRead, isSettled, jittered } from "../skeleton/schedule.ts";
import { gridUsers } from "./dependents.ts";
import { gridType } from "./kind.ts";
import type { GridKnowledge, GridMemory } from "./memory.ts";
import { gridName } from "./plan.ts";

/** Reads credentials and identity, and the grid at the service when due, starting from the memory. */
export async function observeGrid(
  deps: ControllerDeps,
  grid: Grid,
  memory: GridMemory,
): Promise<Observation<GridKnowledge>> {
  const knowledge: GridKnowledge = {
    ...memory,
    problem: undefined,
    me: undefined,
    clusterUsers: [],
    found: undefined,
    requestId: grid.status?.lastRequestId,
  };
  const result: Observation<GridKnowledge> = { knowledge, connection: undefined, failure: undefined };
  const deleting = grid.metadata.deletionTimestamp !== undefined;
  const releasing =
    deleting &&
    (grid.spec.deletionPolicy === "Orphan" || !(grid.metadata.finalizers ?? []).includes(finalizer));
  if (releasing || (grid.spec.suspend && !deleting)) return result;
  if (deleting) {
    knowledge.clusterUsers = gridUsers(deps, grid, grid.status?.gridId ?? memory.grid?.id);
    if (knowledge.clusterUsers.length > 0) return result;
  }
  // Deleting a Grid with no recorded ID still needs the lookup: a create may have happened unheard.
  const unknownId = (grid.status?.gridId ?? grid.spec.gridId ?? memory.grid?.id) === undefined;
  await connectForResource(deps, grid, result, "reading the grid at the service", async (connection) => {
    if (!deleting || unknownId) await readService(deps, grid, knowledge, connection);
  });
  return result;
}

/** Reads into `knowledge`, this observe's own draft. */
async function readService(
  deps: ControllerDeps,
  grid: Grid,
  knowledge: GridKnowledge,
  { client, me }: Connection,
): Promise<void> {
  const missing = scopeProblem(me, ["pools:read"], "read the grid");
  if (missing !== undefined) {
    knowledge.problem = missing;
    return;
  }
  const note = (requestId: string | undefined) => {
    if (requestId !== undefined) knowledge.requestId = requestId;
  };
  const gridId = grid.status?.gridId ?? grid.spec.gridId ?? knowledge.grid?.id;
  if (gridId === undefined) {
    if (!mayHaveCreated(grid.status, "createGrid", knowledge)) return;
    const name = pendingCreate(grid.status, "createGrid").name ?? gridName(grid);
    const found = await createdCandidates(
      (cursor) => client.listGrids({ name, cursor }),
      heldByOthers(deps, gridType, grid.metadata.uid, "gridId"),
      grid.metadata.creationTimestamp,
    );
    knowledge.found = found;
    knowledge.uncertainCreate = found.length > 1;
    return;
  }
  const now = deps.now();
  const generation = grid.metadata.generation ?? 0;
  const request = pendingRequest(reconcileRequest(grid), grid.status?.lastHandledReconcileAt);
  const settled = isSettled(grid, generation) && request === undefined;
  const timing = { now, intervalMs: deps.settings.driftIntervalMs, random: deps.random };
  if (
    knowledge.grid === undefined &&
    deferFirstRead(knowledge, { generation, settled }, timing, "driftDueAt")
  )
    return;
  const due =
    (knowledge.grid !== undefined && knowledge.grid.id !== gridId) ||
    knowledge.readGeneration !== generation ||
    (request !== undefined && request !== knowledge.servedRequest) ||
    (knowledge.driftDueAt !== undefined && knowledge.driftDueAt <= now);
  if (!due) return;
  // A drift check, or the spread first read after a restart: after the user's work.
  const background = knowledge.readGeneration === generation && request === undefined;
  try {
    const read = await client.getGrid(gridId, { priority: background ? "background" : "user" });
    note(read.$metadata.requestId);
    knowledge.grid = read;
    knowledge.gone = false;
  } catch (error) {
    if (!isHostingError(error) || error.code !== "not_found") throw error;
    note(error.requestId);
    knowledge.grid = undefined;
    knowledge.gone = true;
  }
  knowledge.readGeneration = generation;
  knowledge.servedRequest = reconcileRequest(grid);
  knowledge.driftDueAt = now + jittered(deps.settings.driftIntervalMs, deps.random);
}
