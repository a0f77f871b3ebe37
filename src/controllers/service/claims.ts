import { createHash } from "node:crypto";
import { annotations, labels } from "../../api/meta.ts";
import type { KubeObject, ResourceType } from "../../runtime/index.ts";

// One external object, one managing resource: the claim a resource records in its own metadata
// (where backups keep it), and who holds an object when several name it.

/** A resource that claims an external object, as its metadata records the claim. */
export interface Claim {
  namespace: string;
  name: string;
  uid: string;
  /** Epoch ms: of two claimants the earlier holds the object. */
  claimedAt: number;
}

/** The `berth.dev/claim` label's value for an object: the same on every resource that claims it. */
export function claimValue(type: ResourceType, id: string): string {
  return createHash("sha256").update(`${type.plural}/${id}`).digest("hex").slice(0, 40);
}

interface Named {
  namespace?: string | undefined;
  name?: string | undefined;
}

/** `<namespace>/<name>`: how the claimant annotation names a resource. */
export function claimantName(metadata: Named): string {
  return `${metadata.namespace ?? ""}/${metadata.name ?? ""}`;
}

/**
 * `object`'s claim made at `at` (RFC 3339), counted from no earlier than the object's creation: a
 * claim time carried in from elsewhere (a copy whose claimant annotation was edited to its own
 * name, a restore) never dates before the object that holds it existed, so it can't win a tie
 * with the claim it was copied from, or displace one made while it was away. Without a time,
 * since the object's creation.
 */
export function claimOf(object: KubeObject, at?: string | undefined): Claim {
  const { metadata } = object;
  const recorded = Date.parse(at ?? "");
  const created = Date.parse(metadata.creationTimestamp ?? "");
  const known = [recorded, created].filter((t) => !Number.isNaN(t));
  return {
    namespace: metadata.namespace ?? "",
    name: metadata.name,
    uid: metadata.uid ?? "",
    claimedAt: known.length === 0 ? 0 : Math.max(...known),
  };
}

/**
 * The claim `object` holds on `id`: its claimant annotation names the object itself (a copy names
 * the resource it was copied from) and its identity annotation is `id`. Undefined otherwise.
 */
export function heldClaim(object: KubeObject, id: string): Claim | undefined {
  const kept = object.metadata.annotations ?? {};
  if (kept[annotations.claimant] !== claimantName(object.metadata) || kept[annotations.externalId] !== id)
    return undefined;
  return claimOf(object, kept[annotations.claimedAt]);
}

function earlier(a: Claim, b: Claim): boolean {
  return a.claimedAt !== b.claimedAt ? a.claimedAt < b.claimedAt : a.uid < b.uid;
}

/**
 * Who holds `id` among `others` (any order, the resource itself may be among them) when `mine` is
 * the resource's own claim: the earliest holder. `mine` undefined: the resource has not claimed
 * it yet, so any holder comes first. Undefined when the resource holds it (or no one does). Pure.
 */
export function holderBefore(
  mine: Claim | undefined,
  id: string,
  others: readonly KubeObject[],
): Claim | undefined {
  let first: Claim | undefined;
  for (const other of others) {
    if (mine !== undefined && other.metadata.uid === mine.uid) continue;
    const claim = heldClaim(other, id);
    if (claim === undefined) continue;
    if (mine !== undefined && !earlier(claim, mine)) continue;
    if (first === undefined || earlier(claim, first)) first = claim;
  }
  return first;
}

/** The labels and annotations that record a claim on `id`, made at `at` (RFC 3339). */
export function claimMetadata(
  type: ResourceType,
  metadata: Named,
  id: string,
  at: string,
): { labels: Record<string, string>; annotations: Record<string, string> } {
  return {
    labels: { [labels.claim]: claimValue(type, id) },
    annotations: {
      [annotations.externalId]: id,
      [annotations.claimant]: claimantName(metadata),
      [annotations.claimedAt]: at,
    },
  };
}

/**
 * Resources refused an object another holds, by the object's claim value: when the holder goes
 * away (deleted with Orphan), the deletion wakes them at once to take it over.
 */
export class ClaimWaiters {
  readonly #byValue = new Map<string, Set<string>>();
  readonly #valueOf = new Map<string, string>();

  wait(type: ResourceType, value: string, key: string): void {
    const entry = `${type.plural}/${key}`;
    this.forget(type, key);
    const slot = `${type.plural}/${value}`;
    const keys = this.#byValue.get(slot) ?? new Set<string>();
    keys.add(key);
    this.#byValue.set(slot, keys);
    this.#valueOf.set(entry, slot);
  }

  forget(type: ResourceType, key: string): void {
    const entry = `${type.plural}/${key}`;
    const slot = this.#valueOf.get(entry);
    if (slot === undefined) return;
    this.#valueOf.delete(entry);
    const keys = this.#byValue.get(slot);
    keys?.delete(key);
    if (keys?.size === 0) this.#byValue.delete(slot);
  }

  waiting(type: ResourceType, value: string): string[] {
    return [...(this.#byValue.get(`${type.plural}/${value}`) ?? [])];
  }
}
