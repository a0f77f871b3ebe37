import type { Page } from "../../hosting/index.ts";
import { paginate } from "../../hosting/index.ts";
import type { ResourceType } from "../../runtime/index.ts";
import type { ControllerDeps } from "./deps.ts";

/** Clocks of the cluster and the service may differ a little. */
const skewMs = 5 * 60_000;

/**
 * An object found by name (after a create that may have happened unrecorded) counts as the
 * resource's own only if the service made it after the resource existed: an older one of the same
 * name belongs to someone else and is never adopted by accident.
 */
export function madeForResource(
  createdAt: string | undefined,
  resourceCreatedAt: string | undefined,
): boolean {
  const resource = Date.parse(resourceCreatedAt ?? "");
  const made = Date.parse(createdAt ?? "");
  // Without a creation time (the spec doesn't promise one) an object can't be ruled out by age.
  return Number.isNaN(resource) || Number.isNaN(made) || made >= resource - skewMs;
}

/**
 * IDs that other resources of the same kind hold (in `status[field]`, or `spec[field]` when they
 * adopt): an object one of them owns is never adopted by another.
 */
export function heldByOthers(
  deps: ControllerDeps,
  type: ResourceType,
  uid: string | undefined,
  field: string,
): Set<string> {
  const held = new Set<string>();
  for (const other of deps.informer(type).list()) {
    if (other.metadata.uid === uid) continue;
    for (const part of [other.status, other.spec] as unknown[]) {
      const id = (part as Record<string, unknown> | undefined)?.[field];
      if (typeof id === "string") held.add(id);
    }
  }
  return held;
}

/**
 * The objects a create with an unknown outcome may have made (spec rule 7): every object of the
 * name, over all pages (names repeat, pages may be short), made since the resource existed, and
 * held by no other resource. One is the resource's own; none means the create did not happen;
 * several can't be told apart.
 */
export async function createdCandidates<T extends { id: string; createdAt?: string | undefined }>(
  list: (cursor: string | undefined) => Promise<Page<T>>,
  held: ReadonlySet<string>,
  resourceCreatedAt: string | undefined,
): Promise<T[]> {
  const found: T[] = [];
  for await (const item of paginate(list)) {
    if (!held.has(item.id) && madeForResource(item.createdAt, resourceCreatedAt)) found.push(item);
  }
  return found;
}
