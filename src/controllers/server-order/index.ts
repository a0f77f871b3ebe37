import type { KubeObject } from "../../runtime/index.ts";
import { gridType } from "../grid/kind.ts";
import type { ControllerDefinition } from "../skeleton/controller.ts";
import { meaningfulChanges, referrers, secretsWatch } from "../skeleton/watches.ts";
import { serverOrderType } from "./kind.ts";
import { orderSettings, serverOrderReconciler } from "./reconciler.ts";

/** The Grid names a ServerOrder's gridRefs name, read leniently from the raw object. */
function gridRefNames(object: KubeObject): string[] {
  const refs = (object.spec as { gridRefs?: { name?: unknown }[] } | undefined)?.gridRefs ?? [];
  return refs.map((ref) => ref.name).filter((name): name is string => typeof name === "string");
}

/** ServerOrders: reconciled on their own changes, their credentials, and the Grids they join. */
export const serverOrderController: ControllerDefinition = {
  name: "serverorder",
  type: serverOrderType,
  setup(deps) {
    const serverOrders = deps.informer(serverOrderType);
    return {
      reconcile: serverOrderReconciler(deps, orderSettings(deps)),
      watches: [
        secretsWatch(deps, serverOrderType),
        { informer: meaningfulChanges(deps.informer(gridType)), map: referrers(serverOrders, gridRefNames) },
      ],
    };
  },
};
