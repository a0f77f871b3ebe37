import { gridNames, projectNames } from "../../api/meta.ts";
import type { KubeObject } from "../../runtime/index.ts";
import { resourceTypeOf } from "../service/deps.ts";
import type { ControllerDefinition } from "../skeleton/controller.ts";
import { meaningfulChanges, referrers, secretsWatch } from "../skeleton/watches.ts";
import { DriftListings } from "./drift-listing.ts";
import { appType } from "./kind.ts";
import { appReconciler } from "./reconciler.ts";

/** Fields of an App's spec its watches follow, read leniently from the raw object. */
interface AppRefs {
  projectRef?: { name?: string };
  gridPriorities?: { gridRef?: { name?: string } }[];
}

const specOf = (object: KubeObject): AppRefs => (object.spec ?? {}) as AppRefs;

function names(values: Array<string | undefined>): string[] {
  return values.filter((v): v is string => typeof v === "string");
}

/** Apps: reconciled on their own changes and on changes of their Project, Grids and Secrets. */
export const appController: ControllerDefinition = {
  name: "app",
  type: appType,
  setup(deps) {
    const apps = deps.informer(appType);
    return {
      reconcile: appReconciler(deps, new DriftListings(deps.now, () => deps.settings.driftIntervalMs)),
      watches: [
        secretsWatch(deps, appType),
        {
          // The Project's cost is the sum of its Apps' costs: no App acts on it, and a new App's cost
          // would otherwise wake every App of the project.
          informer: meaningfulChanges(deps.informer(resourceTypeOf(projectNames)), ["cost"]),
          map: referrers(apps, (object) => names([specOf(object).projectRef?.name])),
        },
        {
          informer: meaningfulChanges(deps.informer(resourceTypeOf(gridNames))),
          map: referrers(apps, (object) =>
            names((specOf(object).gridPriorities ?? []).map((g) => g.gridRef?.name)),
          ),
        },
      ],
    };
  },
};
