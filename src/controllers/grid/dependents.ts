import type { Grid } from "../../api/grid.ts";
import { serverOrderNames } from "../../api/meta.ts";
import { type KubeObject, type ObjectCache, objectKey } from "../../runtime/index.ts";
import { type ControllerDeps, resourceTypeOf } from "../service/deps.ts";
import type { Watch } from "../skeleton/controller.ts";
import { meaningfulChanges } from "../skeleton/watches.ts";

const serverOrderType = resourceTypeOf(serverOrderNames);

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

/**
 * ServerOrders in the cluster that use the grid. A Grid deleted before them would leave an order
 * in flight unable to tell which grids it asked for.
 */
export function serverOrdersUsing(deps: ControllerDeps, grid: Grid, gridId: string | undefined): string[] {
  const identity = { namespace: grid.metadata.namespace, name: grid.metadata.name, gridId };
  return deps
    .informer(serverOrderType)
    .list()
    .filter((order) => usesGrid(order, identity))
    .map(objectKey);
}

/** A ServerOrder coming or going re-enqueues the Grids it uses (a deleting Grid waits for it). */
export function serverOrdersWatch(deps: ControllerDeps, grids: ObjectCache): Watch {
  return {
    informer: meaningfulChanges(deps.informer(serverOrderType)),
    map: (order) =>
      grids
        .list()
        .filter((grid) =>
          usesGrid(order, {
            namespace: grid.metadata.namespace,
            name: grid.metadata.name,
            gridId: (grid.status as { gridId?: string } | undefined)?.gridId,
          }),
        )
        .map(objectKey),
  };
}
