import { group, type KindNames, version } from "../../api/meta.ts";
import type { ResourceType } from "../../runtime/index.ts";

/** The runtime's view of one of berth's kinds. */
export function resourceTypeOf(names: KindNames): ResourceType {
  return { group, version, plural: names.plural, kind: names.kind };
}
