/** Clocks of the cluster and the service may differ a little. */
const skewMs = 5 * 60_000;

/**
 * An object found by name (after a create that may have happened unrecorded) counts as the
 * resource's own only if the service made it after the resource existed: an older one of the same
 * name belongs to someone else and is never adopted by accident.
 */
export function madeForResource(createdAt: string, resourceCreatedAt: string | undefined): boolean {
  const resource = Date.parse(resourceCreatedAt ?? "");
  return Number.isNaN(resource) || Date.parse(createdAt) >= resource - skewMs;
}
