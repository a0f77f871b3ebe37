import type { MapToKeys, Reconciler, ResourceType, Source } from "../../runtime/index.ts";
import type { ControllerDeps } from "../service/deps.ts";

/** A related informer whose changes re-enqueue the primaries `map` names. */
export interface Watch {
  informer: Source;
  map: MapToKeys;
}

/** One controller, as the operator registers it: its primary kind and how to build it. */
export interface ControllerDefinition {
  /** The controller's name: the `controller` label of its metrics. */
  name: string;
  type: ResourceType;
  /** Builds the reconciler and its extra watches; called once, before the manager starts. */
  setup(deps: ControllerDeps): { reconcile: Reconciler; watches: Watch[] };
}
