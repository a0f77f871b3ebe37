import type { Grid } from "../../api/grid.ts";
import { finalizer } from "../../api/meta.ts";
import { isHostingError } from "../../hosting/index.ts";
import { ensureFinalizer, type KubeObject, removeFinalizer } from "../../runtime/index.ts";
import { settleActionFailure } from "../shared/act-failure.ts";
import { quoteRequest } from "../shared/condition-changes.ts";
import type { ControllerDeps } from "../shared/deps.ts";
import { describeFailure, type Failure } from "../shared/failure.ts";
import type { Connection } from "../shared/hosting-access.ts";
import { countRefusal } from "../shared/memory.ts";
import { gridType } from "./kind.ts";
import type { GridMemory, GridObserved } from "./observed.ts";
import type { GridAction } from "./plan.ts";

export interface GridActInput {
  deps: ControllerDeps;
  object: KubeObject;
  grid: Grid;
  memory: GridMemory;
  observed: GridObserved;
  connection: Connection | undefined;
}

const doing: Record<GridAction["type"], string> = {
  addFinalizer: "adding the finalizer",
  removeFinalizer: "removing the finalizer",
  adopt: "adopting the grid",
  create: "creating the grid",
  delete: "deleting the grid",
};

/** Carries out the actions in order; stops at the first failure. Returns the object (undefined once released). */
export async function actOnGrid(
  input: GridActInput,
  actions: readonly GridAction[],
): Promise<{ object: KubeObject | undefined; failure: Failure | undefined }> {
  const { deps, memory, observed } = input;
  let object: KubeObject | undefined = input.object;
  const event = (reason: string, requestId: string | undefined, note: string, action: string) => {
    if (requestId !== undefined) observed.requestId = requestId;
    deps.recorder.record(input.object, "Normal", reason, quoteRequest(requestId, note), action);
  };
  for (const action of actions) {
    const client = input.connection?.client;
    try {
      switch (action.type) {
        case "addFinalizer":
          object = await ensureFinalizer(deps.kube, gridType, object ?? input.object, finalizer);
          break;
        case "removeFinalizer":
          await removeFinalizer(deps.kube, gridType, object ?? input.object, finalizer);
          object = undefined;
          break;
        case "adopt":
          memory.grid = action.grid;
          memory.gone = false;
          memory.uncertainCreate = false;
          event(
            "Adopted",
            undefined,
            `adopted grid ${action.grid.id}, created by an earlier attempt`,
            "adopt",
          );
          break;
        case "create": {
          if (client === undefined) throw new TypeError("create needs a connection");
          const created = await client.createGrid(action.body, { idempotencyKey: action.idempotencyKey });
          memory.grid = created;
          memory.gone = false;
          memory.uncertainCreate = false;
          memory.readGeneration = input.grid.metadata.generation ?? 0;
          event(
            "Created",
            created.$metadata.requestId,
            `created grid ${created.name} (${created.id})`,
            "create",
          );
          break;
        }
        case "delete": {
          if (client === undefined) throw new TypeError("delete needs a connection");
          try {
            const metadata = await client.deleteGrid(action.gridId);
            event("Deleted", metadata.requestId, `deleted grid ${action.gridId}`, "delete");
          } catch (error) {
            if (!isHostingError(error) || error.code !== "not_found") throw error;
          }
          memory.grid = undefined;
          memory.gone = true;
          break;
        }
      }
    } catch (error) {
      if (!isHostingError(error)) throw error;
      const failure = describeFailure(error, doing[action.type]);
      if (action.type === "create" && failure.uncertain) memory.uncertainCreate = true;
      if (action.type === "create") countRefusal(memory, failure);
      settleActionFailure(input, action.type, failure);
      return { object, failure };
    }
  }
  observed.grid = memory.grid;
  observed.gone = memory.gone;
  return { object, failure: undefined };
}
