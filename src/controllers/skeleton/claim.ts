import { annotations, finalizer, labels } from "../../api/meta.ts";
import {
  asKubeObject,
  isKubeError,
  type KubeClient,
  type KubeObject,
  listLabelled,
  objectKey,
  objectPath,
  parseKey,
  patchMetadata,
  type ResourceType,
  type Source,
  updatesWhen,
} from "../../runtime/index.ts";
import { freeClaimLock, type LeaseHolderState, takeClaimLock } from "../service/claim-lock.ts";
import {
  type Claim,
  claimantName,
  claimMetadata,
  claimValue,
  heldClaim,
  holderBefore,
} from "../service/claims.ts";
import type { ControllerDeps } from "../service/deps.ts";
import type { Watch } from "./controller.ts";
import type { Resource } from "./kind.ts";
import { type OwnedField, ownedValue, withRestoredIdentity } from "./owned.ts";

/** Where the external ID a resource names comes from. */
export type Named = "status" | "annotation" | "spec";

/** The claim check's answer: go on (with the object as the claim left it), or leave the object to its holder. */
export type ClaimCheck =
  | { held: true; object: KubeObject }
  | { held: false; holder: Claim; id: string; named: Named };

/** The external ID a resource names: status's, else its identity annotation's (a restore or a copy), else its spec's (adoption). */
export function namedId(resource: Resource, field: string): { id: string; named: Named } | undefined {
  const fromStatus = (resource.status as Record<string, unknown> | undefined)?.[field];
  if (typeof fromStatus === "string") return { id: fromStatus, named: "status" };
  const kept = resource.metadata.annotations?.[annotations.externalId];
  if (kept !== undefined && kept !== "") return { id: kept, named: "annotation" };
  const fromSpec = (resource.spec as Record<string, unknown>)[field];
  return typeof fromSpec === "string" ? { id: fromSpec, named: "spec" } : undefined;
}

/** What the claim check reads and writes with: the apiserver, this shard's cache, the clock, the claim Leases. */
export interface ClaimDeps {
  kube: KubeClient;
  now(): number;
  informer(type: ResourceType): { list(): KubeObject[] };
  claims: ControllerDeps["claims"];
}

interface ClaimTarget {
  deps: ClaimDeps;
  type: ResourceType;
  /** The status field of the external ID; a kind without one claims nothing. */
  field: string | undefined;
  object: KubeObject;
  resource: Resource;
  /** The IDs a resource holds beyond its own (see `Kind.holds`). */
  holds?: ((status: unknown) => string[]) | undefined;
}

/**
 * One external object, one managing resource, decided from claims alone: an ID in status is never
 * a claim (an [Observe] resource read it, a person wrote it, or the claim was given up since). A
 * resource holds the object only while its own metadata records the claim and no earlier holder is
 * in sight. Without a claim, naming the object (a spec ID, a copied or restored annotation, status
 * kept from [Observe] on entering a managing policy) is an adoption: refused when another resource
 * holds it (in the cache, then the claim Lease, see `claim-lock.ts`), otherwise claimed: the Lease
 * taken (one claimant of several racing), the claim recorded on the resource, and checked again at
 * the apiserver across every watched namespace and shard for a holder the Lease never saw (one
 * claimed before Leases, a restore).
 */
export async function checkClaim(target: ClaimTarget): Promise<ClaimCheck> {
  const { deps, type, field, object, resource } = target;
  const named = field === undefined ? undefined : namedId(resource, field);
  if (named === undefined) return { held: true, object };
  const { id } = named;
  const refused = (holder: Claim): ClaimCheck => ({ held: false, holder, id, named: named.named });
  const mine = heldClaim(object, id);
  const cached =
    holderBefore(mine, id, cachedClaimants(deps, type, id)) ??
    coveredBy(target, id, deps.informer(type).list());
  if (cached !== undefined) return refused(cached);
  if (mine !== undefined) return { held: true, object };
  // Going away with nothing to call (no finalizer of berth's, or Orphan): no claim is needed.
  if (resource.metadata.deletionTimestamp !== undefined && !destroys(resource)) return { held: true, object };
  const me = claimantName(object.metadata);
  const value = claimValue(type, id);
  const now = deps.now();
  const lock = await takeClaimLock(deps.claims.locks, value, me, now, (holder) =>
    recordedClaim(deps, type, holder, id),
  );
  if (!lock.taken) return refused(lock.holder);
  const at = new Date(now).toISOString();
  const claimed =
    (await patchMetadata(deps.kube, type, object, claimMetadata(type, object.metadata, id, at))) ?? object;
  const claimants = await listLabelled(deps.kube, type, `${labels.claim}=${value}`, deps.claims.namespaces);
  const holder =
    holderBefore(heldClaim(claimed, id), id, claimants) ??
    (adopts(target)
      ? coveredBy(target, id, await listLabelled(deps.kube, type, "", deps.claims.namespaces))
      : undefined);
  if (holder === undefined) return { held: true, object: claimed };
  // An earlier holder the Lease never saw: this claim is taken back.
  await patchMetadata(deps.kube, type, claimed, {
    labels: { [labels.claim]: null },
    annotations: { [annotations.claimant]: null, [annotations.claimedAt]: null },
  });
  await freeClaimLock(deps.claims.locks, value, me, deps.now());
  return refused(holder);
}

/** The resource names its object by its spec ID (an adoption), the only way to name one another holds beyond its own. */
function adopts(target: ClaimTarget): boolean {
  const { field, resource } = target;
  return field !== undefined && typeof (resource.spec as Record<string, unknown>)[field] === "string";
}

/**
 * The claim of another resource whose status (or, after a restore, its berth.dev/owned
 * annotation) holds `id` beyond its own object: a ServerOrder's growth or replacement order is
 * covered by the claim on its first order. Only an adopter by spec ID is checked. Pure.
 */
export function coveredBy(target: ClaimTarget, id: string, others: readonly KubeObject[]): Claim | undefined {
  const { holds, field, object } = target;
  if (holds === undefined || field === undefined || !adopts(target)) return undefined;
  for (const other of others) {
    if (other.metadata.uid === object.metadata.uid) continue;
    const own = other.metadata.annotations?.[annotations.externalId];
    const claim = own === undefined ? undefined : heldClaim(other, own);
    if (claim === undefined || own === id) continue;
    const kept = withRestoredIdentity(
      { metadata: other.metadata, spec: {}, status: undefined },
      field,
    ).status;
    if ([...holds(other.status), ...holds(kept)].includes(id)) return claim;
  }
  return undefined;
}

/** Whether `holder` (namespace/name) is there, and the claim it records on `id`, read from the apiserver. */
async function recordedClaim(
  deps: ClaimDeps,
  type: ResourceType,
  holder: string,
  id: string,
): Promise<LeaseHolderState> {
  try {
    const object = asKubeObject(await deps.kube.call("GET", objectPath(type, parseKey(holder))));
    return { gone: false, claim: heldClaim(object, id) };
  } catch (error) {
    if (isKubeError(error, "not_found")) return { gone: true };
    throw error;
  }
}

/** A deletion that calls the service: berth's finalizer is on, and not Orphan (or no Delete, see `withAllowance`). */
function destroys(resource: Resource): boolean {
  return (
    (resource.metadata.finalizers ?? []).includes(finalizer) && resource.spec.deletionPolicy !== "Orphan"
  );
}

function cachedClaimants(deps: ClaimDeps, type: ResourceType, id: string): KubeObject[] {
  const value = claimValue(type, id);
  return deps
    .informer(type)
    .list()
    .filter((other) => other.metadata.labels?.[labels.claim] === value);
}

/**
 * The labels and annotations that keep what the resource owns (always) and its claim, external
 * ID and owner once status knows the ID (see `withRestoredIdentity`): a claim already recorded for
 * the ID keeps its time; a new one (the object this reconcile made) dates from `now`.
 */
export function identityMetadata(
  kind: { type: ResourceType; externalId?: string | undefined; owns?: readonly OwnedField[] | undefined },
  object: KubeObject,
  status: { before: unknown; now: unknown },
  now: Date,
): { labels: Record<string, string>; annotations: Record<string, string | null> } {
  const { type, externalId: field } = kind;
  const known = (status.now ?? {}) as Record<string, unknown> & { owner?: { userId: string } };
  const owned = { [annotations.owned]: ownedValue(known, kind.owns ?? [], objectKey(object)) ?? null };
  const id = field === undefined ? undefined : known[field];
  if (field === undefined || typeof id !== "string") return { labels: {}, annotations: owned };
  const kept = object.metadata.annotations ?? {};
  const at = heldClaim(object, id) !== undefined ? kept[annotations.claimedAt] : undefined;
  const claim = claimMetadata(type, object.metadata, id, at ?? now.toISOString());
  return {
    labels: claim.labels,
    annotations: {
      ...claim.annotations,
      ...(known.owner === undefined ? {} : { [annotations.owner]: known.owner.userId }),
      ...owned,
    },
  };
}

/**
 * A holder's deletion (or a change of what it claims) wakes the resources refused its object, so
 * one waiting to take it over does so at once (after the holder was deleted with Orphan).
 */
export function claimsWatch(deps: ControllerDeps, type: ResourceType): Watch {
  const claimOf = (object: KubeObject) => object.metadata.labels?.[labels.claim];
  const source: Source = updatesWhen(
    deps.informer(type),
    (before, after) => claimOf(before) !== claimOf(after),
  );
  return {
    informer: source,
    map: (object) => {
      const value = claimOf(object);
      if (value === undefined) return [];
      return deps.claims.waiters.waiting(type, value).filter((key) => key !== objectKey(object));
    },
  };
}

/** Refused: what the resource names, who holds it, and what a person can do. */
export function alreadyManaged(
  type: ResourceType,
  field: string,
  refused: Extract<ClaimCheck, { held: false }>,
): string {
  const kind = type.kind ?? type.plural;
  const what = field.replace(/Id$/, "");
  const holder = `${kind} ${refused.holder.namespace}/${refused.holder.name}`;
  const remedy = {
    spec: `to manage another ${what}, change spec.${field}`,
    status: `its status.${field} names it (it was observed, or written there) but holds no claim: to only watch it, set managementPolicies: [Observe]`,
    annotation: `to create a ${what} of its own, remove the annotations ${annotations.externalId} and ${annotations.claimant} (they were copied from the holder)`,
  }[refused.named];
  return (
    `${holder} already manages ${what} ${refused.id}; this ${kind} changes nothing and is released without calls when deleted. ` +
    `${remedy[0]?.toUpperCase()}${remedy.slice(1)}; or hand it over: set deletionPolicy: Orphan on ${holder} and delete it, and this one takes it over`
  );
}

/** The claim taken back (an Observe-only resource holds none); nothing to patch when there is none. */
export function withoutClaim(object: KubeObject): {
  labels: Record<string, null>;
  annotations: Record<string, null>;
} {
  const has = (map: Record<string, string> | undefined, key: string) => map?.[key] !== undefined;
  const { labels: kept, annotations: notes } = object.metadata;
  return {
    labels: has(kept, labels.claim) ? { [labels.claim]: null } : {},
    annotations: {
      ...(has(notes, annotations.claimant) ? { [annotations.claimant]: null } : {}),
      ...(has(notes, annotations.claimedAt) ? { [annotations.claimedAt]: null } : {}),
    },
  };
}
