import { annotations } from "../../api/meta.ts";
import type { Resource } from "./resource.ts";

// What a resource owns beyond its first ID (growth orders, removals, replacements, the app's
// project, Pending intents, the day-2 requests already handled) lives in status, which backups and
// migrations drop. It is also kept, compact, in one annotation, where they keep it, and put back
// into a status that lost it before anything acts.

type Status = Record<string, unknown> & { intents?: { state?: string }[] | undefined };

/**
 * A status field the annotation keeps: whole, or (a list of objects) with only the `keep` fields of
 * each entry, so a long list stays small (the apiserver allows 256 KiB for all annotations).
 */
export type OwnedField = string | { field: string; keep: readonly string[] };

/** Fields every kind keeps: the owner, and the intents that may still act. */
const always = ["owner", "intents"] as const;

/** The field of `berth.dev/owned` naming whose it is (namespace/name): a copy carries another's. */
const ofField = "of";

/**
 * The `berth.dev/owned` annotation's value for this status of resource `of` (namespace/name): the
 * fields `owns` names that it holds, with only the intents that may still act (a refused one is
 * settled). Undefined when it holds none.
 */
export function ownedValue(status: unknown, owns: readonly OwnedField[], of: string): string | undefined {
  const known = (status ?? {}) as Status;
  const kept: Record<string, unknown> = {};
  for (const owned of [...owns, ...always]) {
    const field = typeof owned === "string" ? owned : owned.field;
    const whole = field === "intents" ? known.intents?.filter((i) => i.state !== "Refused") : known[field];
    const value =
      typeof owned === "string" || !Array.isArray(whole) ? whole : whole.map((e) => only(e, owned.keep));
    if (value !== undefined && !(Array.isArray(value) && value.length === 0)) kept[field] = value;
  }
  return Object.keys(kept).length === 0 ? undefined : JSON.stringify({ [ofField]: of, ...kept });
}

type Annotated = { metadata: { annotations?: Record<string, string> | undefined } };

/** One field of the `berth.dev/owned` the resource carries, unparsed; undefined when absent or mangled. */
export function ownedEntry(resource: Annotated, field: string): unknown {
  return ownedOf(resource.metadata.annotations?.[annotations.owned])[field];
}

/** Whose `berth.dev/owned` the resource carries (namespace/name); undefined when it does not say. */
export function ownedOfWhom(resource: Annotated): string | undefined {
  const of = ownedEntry(resource, ofField);
  return typeof of === "string" ? of : undefined;
}

function only(entry: unknown, keep: readonly string[]): unknown {
  if (typeof entry !== "object" || entry === null) return entry;
  return Object.fromEntries(Object.entries(entry).filter(([key]) => keep.includes(key)));
}

/**
 * The resource with what its annotations kept put back into a status that lost it (a restore from
 * a backup or an export, which carry no status): the external ID, the owner and everything it owns,
 * Pending intents too (an order whose ID is not known yet). Fields status still holds win; a status
 * that knows its external ID is left as it is.
 */
export function withRestoredIdentity<R extends Resource>(resource: R, field: string | undefined): R {
  const annotated = resource.metadata.annotations ?? {};
  const id = annotated[annotations.externalId];
  const status = (resource.status ?? {}) as Status;
  const owned = annotated[annotations.owned];
  const known = id !== undefined && id !== "";
  if (field === undefined || typeof status[field] === "string" || (!known && owned === undefined))
    return resource;
  const userId = annotated[annotations.owner];
  const owner = userId === undefined ? {} : { owner: { userId, credential: "restored from annotation" } };
  const { [ofField]: _, ...kept } = ownedOf(owned);
  const restored = { ...owner, ...kept, ...status, ...(known ? { [field]: id } : {}) };
  return { ...resource, status: restored };
}

function ownedOf(value: string | undefined): Record<string, unknown> {
  if (value === undefined) return {};
  try {
    const parsed: unknown = JSON.parse(value);
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : {};
  } catch {
    // An annotation a person mangled restores nothing; the schema check after it says what is wrong.
    return {};
  }
}
