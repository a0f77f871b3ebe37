import { spendLimitSchema } from "../../api/spend-limit.ts";
import { type KubeObject, type ResourceType, updatesWhen } from "../../runtime/index.ts";
import type { ControllerDeps } from "../service/deps.ts";
import { spendLimitType } from "../service/spend-ledger.ts";
import type { Watch } from "./controller.ts";

/**
 * A SpendLimit whose limit rose or whose counted spend fell wakes the resources of `type` it
 * refused, oldest refusal first (a refusal alone changes neither, so the woken don't wake each other).
 */
export function spendWatch(deps: ControllerDeps, type: ResourceType): Watch {
  const counted = (object: KubeObject) => {
    const status = (object.status ?? {}) as { used?: unknown; committed?: unknown; commitments?: unknown };
    return JSON.stringify([object.metadata.generation, status.used, status.committed, status.commitments]);
  };
  return {
    informer: updatesWhen(
      deps.informer(spendLimitType),
      (before, after) => counted(before) !== counted(after),
    ),
    map: (object) => {
      const parsed = spendLimitSchema.safeParse(object);
      if (!parsed.success) return [];
      const prefix = `${type.kind ?? type.plural}/`;
      return (parsed.data.status?.refused ?? [])
        .filter((entry) => entry.resource.startsWith(prefix))
        .map((entry) => `${object.metadata.namespace}/${entry.resource.slice(prefix.length)}`);
    },
  };
}
