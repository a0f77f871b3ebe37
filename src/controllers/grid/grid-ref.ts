import type { KubeObject } from "../../runtime/index.ts";
import { type Problem, waitingFor } from "../service/failure.ts";
import { Reason } from "../service/reasons.ts";

export type GridRefResult = { ok: true; gridId: string } | { ok: false; problem: Problem };

/** Reads Grid resources (from the informer's store) by namespace and name. */
export type GridLookup = (namespace: string, name: string) => KubeObject | undefined;

/**
 * The service's ID of the Grid a `gridRef {name}` names, or why it has none yet (reason
 * `GridNotReady`: waiting, not stalled, since the Grid controller gets there by itself).
 * `grid` is the Grid resource in the referrer's namespace, undefined when there is none.
 */
export function resolveGridRef(grid: KubeObject | undefined, namespace: string, name: string): GridRefResult {
  if (grid === undefined) return notReady(`waiting for Grid ${name} to exist in namespace ${namespace}`);
  if (grid.metadata.deletionTimestamp !== undefined) {
    return notReady(`Grid ${name} is being deleted; reference another Grid or re-create it`);
  }
  const gridId = (grid.status as { gridId?: unknown } | undefined)?.gridId;
  if (typeof gridId !== "string" || gridId === "") {
    return notReady(`waiting for Grid ${name} to get its grid ID from the service`);
  }
  return { ok: true, gridId: gridId.toLowerCase() };
}

export type GridIdsResult = { ok: true; gridIds: string[] } | { ok: false; problem: Problem };

/**
 * Grid IDs given directly plus those of the referenced Grids, lowercased, without repeats and
 * sorted (so equal sets give equal idempotency keys); the first reference not ready stops it.
 */
export function resolveGridIds(
  lookup: GridLookup,
  namespace: string,
  refs: readonly { name: string }[],
  ids: readonly string[],
): GridIdsResult {
  const resolved = ids.map((id) => id.toLowerCase());
  for (const { name } of refs) {
    const result = resolveGridRef(lookup(namespace, name), namespace, name);
    if (!result.ok) return result;
    resolved.push(result.gridId);
  }
  return { ok: true, gridIds: [...new Set(resolved)].sort() };
}

function notReady(message: string): GridRefResult {
  return { ok: false, problem: waitingFor(Reason.GridNotReady, message) };
}
