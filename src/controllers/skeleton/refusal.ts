import { finalizer } from "../../api/meta.ts";
import {
  type KubeObject,
  Outcome,
  objectKey,
  type ResourceType,
  removeFinalizer,
} from "../../runtime/index.ts";
import { claimValue } from "../service/claims.ts";
import type { ControllerDeps } from "../service/deps.ts";
import { Reason } from "../service/reasons.ts";
import { alreadyManaged, type ClaimCheck } from "./claim.ts";
import type { Resource } from "./kind.ts";
import { writeProblem } from "./status.ts";

type Refused = Extract<ClaimCheck, { held: false }>;

/**
 * A resource refused an object another holds calls nothing. Being there: `Stalled`
 * `AlreadyManaged`, woken when the holder lets go. Deleted: its finalizer (a copied manifest
 * carries one) is released, and nothing the holder owns is touched.
 */
export async function leaveToHolder(
  target: { deps: ControllerDeps; type: ResourceType; field: string; object: KubeObject; resource: Resource },
  refused: Refused,
): Promise<Outcome> {
  const { deps, type, field, object, resource } = target;
  const key = objectKey(object);
  if (resource.metadata.deletionTimestamp === undefined) {
    deps.claims.waiters.wait(type, claimValue(type, refused.id), key);
  } else {
    deps.claims.waiters.forget(type, key);
  }
  return standAside(target, alreadyManaged(type, field, refused));
}

/**
 * Leaves what another resource manages to it, saying why in `message`: `Stalled` `AlreadyManaged`,
 * looked at again after the Stalled retry; deleted, released without calls.
 */
export async function standAside(
  target: { deps: ControllerDeps; type: ResourceType; object: KubeObject; resource: Resource },
  message: string,
): Promise<Outcome> {
  const { deps, type, object, resource } = target;
  if (resource.metadata.deletionTimestamp !== undefined) {
    if ((object.metadata.finalizers ?? []).includes(finalizer)) {
      deps.recorder.record(
        object,
        "Normal",
        "Released",
        `released without calls: ${message}`,
        "removeFinalizer",
      );
      await removeFinalizer(deps.kube, type, object, finalizer);
    }
    return Outcome.done();
  }
  const generation = resource.metadata.generation ?? 0;
  const previous = (object.status ?? {}) as { observedGeneration?: number };
  await writeProblem(
    { deps, type, object },
    previous,
    { ...previous, observedGeneration: generation },
    { stalled: true, reason: Reason.AlreadyManaged, message },
    { generation, recorded: false },
  );
  return Outcome.requeueAfter(deps.settings.stalledRetryMs);
}
