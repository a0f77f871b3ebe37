import { annotations } from "../../api/meta.ts";
import type { Resource } from "./kind.ts";

type WithIdentity = Record<string, unknown> & { owner?: { userId: string; credential: string } | undefined };

/**
 * A resource whose status lost its external ID (a restore from a backup or an export, which carry
 * no status) seen with the ID and owner its annotations kept: it adopts that object, never creates.
 */
export function withRestoredIdentity<R extends Resource>(resource: R, field: string | undefined): R {
  const kept = resource.metadata.annotations ?? {};
  const id = kept[annotations.externalId];
  const status = (resource.status ?? {}) as WithIdentity;
  if (field === undefined || id === undefined || id === "" || typeof status[field] === "string")
    return resource;
  const userId = kept[annotations.owner];
  const owner =
    status.owner ?? (userId === undefined ? undefined : { userId, credential: "restored from annotation" });
  return { ...resource, status: { ...status, [field]: id, ...(owner === undefined ? {} : { owner }) } };
}
