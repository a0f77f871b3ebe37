import type { Grid } from "../../api/grid.ts";
import { appNames, serverOrderNames } from "../../api/meta.ts";
import { type KubeObject, type ObjectCache, objectKey } from "../../runtime/index.ts";
import { type ControllerDeps, resourceTypeOf } from "../service/deps.ts";
import type { Watch } from "../skeleton/controller.ts";
import { meaningfulChanges } from "../skeleton/watches.ts";

const serverOrderType = resourceTypeOf(serverOrderNames);
const appType = resourceTypeOf(appNames);

interface GridIdentity {
  namespace: string | undefined;
  name: string;
  gridId: string | undefined;
}

/** Whether a ServerOrder (read leniently from the raw object) names the grid: by ref in its namespace, or by ID. */
function usesGrid(order: KubeObject, grid: GridIdentity): boolean {
  const spec = order.spec as { gridRefs?: { name?: string }[]; gridIds?: string[] } | undefined;
  const byRef =
    order.metadata.namespace === grid.namespace &&
    (spec?.gridRefs ?? []).some((ref) => ref.name === grid.name);
  return byRef || (grid.gridId !== undefined && (spec?.gridIds ?? []).includes(grid.gridId));
}

/** Whether an App's gridPriorities name the grid: by ref in its namespace, or by ID. */
function prioritizesGrid(app: KubeObject, grid: GridIdentity): boolean {
  const spec = app.spec as
    | { gridPriorities?: { gridRef?: { name?: string }; gridId?: string }[] }
    | undefined;
  return (spec?.gridPriorities ?? []).some(
    (entry) =>
      (app.metadata.namespace === grid.namespace && entry.gridRef?.name === grid.name) ||
      (grid.gridId !== undefined && entry.gridId === grid.gridId),
  );
}

/**
 * ServerOrders and Apps in every watched namespace that use the grid (`ServerOrder ns/name`). A
 * Grid deleted before them would leave an order in flight unable to tell which grids it asked
 * for, and an App's placement pointing at nothing.
 */
export function gridUsers(deps: ControllerDeps, grid: Grid, gridId: string | undefined): string[] {
  const identity = { namespace: grid.metadata.namespace, name: grid.metadata.name, gridId };
  const orders = deps
    .informer(serverOrderType)
    .list()
    .filter((order) => usesGrid(order, identity))
    .map((order) => `ServerOrder ${objectKey(order)}`);
  const apps = deps
    .informer(appType)
    .list()
    .filter((app) => prioritizesGrid(app, identity))
    .map((app) => `App ${objectKey(app)}`);
  return [...orders, ...apps];
}

/** The grid of a Grid object, as its dependants name it. */
function identityOf(grid: KubeObject): GridIdentity {
  return {
    namespace: grid.metadata.namespace,
    name: grid.metadata.name,
    gridId: (grid.status as { gridId?: string } | undefined)?.gridId,
  };
}

/** A ServerOrder or App coming or going re-enqueues the Grids it uses (a deleting Grid waits for it). */
export function gridUsersWatches(deps: ControllerDeps, grids: ObjectCache): Watch[] {
  const deleting = () => grids.list().filter((grid) => grid.metadata.deletionTimestamp !== undefined);
  return [
    {
      informer: meaningfulChanges(deps.informer(serverOrderType)),
      map: (order) =>
        grids
          .list()
          .filter((grid) => usesGrid(order, identityOf(grid)))
          .map(objectKey),
    },
    {
      // Only a Grid being deleted waits for its Apps: an App's change wakes no other Grid.
      informer: meaningfulChanges(deps.informer(appType)),
      map: (app) =>
        deleting()
          .filter((grid) => prioritizesGrid(app, identityOf(grid)))
          .map(objectKey),
    },
  ];
}
