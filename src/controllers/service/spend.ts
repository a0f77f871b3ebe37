import type { Commitment, RefusedSpend } from "../../api/spend-limit.ts";

/** Money as integer millionths of the account's currency: exact sums, no floats. */
export type Micros = bigint;

const scale = 6;

/** "0.0520" → 52000n; more than six decimals are rounded up (a limit is never passed by rounding). */
export function toMicros(amount: string): Micros | undefined {
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(amount);
  if (match === null) return undefined;
  const [, sign = "", whole = "0", fraction = ""] = match;
  const kept = BigInt(whole + fraction.slice(0, scale).padEnd(scale, "0"));
  const roundedUp = /[1-9]/.test(fraction.slice(scale)) ? kept + 1n : kept;
  return sign === "-" ? -roundedUp : roundedUp;
}

/** 52000n → "0.052"; whole amounts keep two decimals ("1.00"). */
export function formatMicros(value: Micros): string {
  const sign = value < 0n ? "-" : "";
  const digits = (value < 0n ? -value : value).toString().padStart(scale + 1, "0");
  const fraction = digits.slice(-scale).replace(/0+$/, "").padEnd(2, "0");
  return `${sign}${digits.slice(0, -scale)}.${fraction}`;
}

/** One berth resource of the namespace as the decision sees it. */
export interface CostedResource {
  /** Kind/name, as commitments and refusals name it. */
  resource: string;
  uid: string;
  /** status.cost.hourly, when the service stated it. */
  cost: Micros | undefined;
  currency?: string | undefined;
  /** When it last became Ready True (RFC 3339), if it is Ready. */
  readySince: string | undefined;
  /** The generation its Ready True condition was written for, if it is Ready. */
  readyGeneration?: number | undefined;
  /**
   * The room its calls that may still act hold (the most their intents record, see `Intent.room`):
   * read from the resource itself, so a SpendLimit re-created or restored without status loses none.
   */
  inFlight?: Micros | undefined;
}

/** A commitment is done once its resource is gone, costed at least as much, Ready anew, or too old. */
export function commitmentDone(
  commitment: Commitment,
  holder: CostedResource | undefined,
  now: Date,
  ttlMs: number,
): boolean {
  if (holder === undefined || holder.uid !== commitment.uid) return true;
  if (now.getTime() - Date.parse(commitment.since) > ttlMs) return true;
  if (holder.cost === undefined) return false;
  if (holder.cost >= (toMicros(commitment.hourly) ?? 0n)) return true;
  if (holder.readySince === undefined) return false;
  // Ready True, with a stated cost, other than the Ready seen when the room was taken (a new
  // transition, or Ready for a later spec): the service's word replaces the reserve.
  const seen = commitment.readyBefore;
  if (seen === undefined) return Date.parse(holder.readySince) > Date.parse(commitment.since);
  return holder.readySince !== seen.lastTransitionTime || holder.readyGeneration !== seen.observedGeneration;
}

/** What the namespace spends: each resource's stated cost, or its open commitment where that is more. */
export interface NamespaceSpend {
  used: Micros;
  committed: Micros;
  /** Commitments still open (the done ones dropped). */
  open: Commitment[];
}

export function namespaceSpend(
  resources: readonly CostedResource[],
  commitments: readonly Commitment[],
  now: Date,
  ttlMs: number,
): NamespaceSpend {
  const byName = new Map(resources.map((r) => [r.resource, r]));
  const open = unique(commitments).filter((c) => !commitmentDone(c, byName.get(c.resource), now, ttlMs));
  const used = resources.reduce((sum, r) => sum + (r.cost ?? 0n), 0n);
  const committed = resources.reduce((sum, r) => {
    const extra = roomOf(r, open) - (r.cost ?? 0n);
    return sum + (extra > 0n ? extra : 0n);
  }, 0n);
  return { used, committed, open };
}

/** Commitments without repeats: a resource's own copy (`status.spendRoom`) and the SpendLimit's are one. */
function unique(commitments: readonly Commitment[]): Commitment[] {
  const seen = new Set<string>();
  return commitments.filter((c) => {
    const key = [c.resource, c.uid, c.since, c.hourly].join("\u0000");
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The most a resource's room stands at: its open commitments and its calls in flight. */
function roomOf(resource: CostedResource, open: readonly Commitment[]): Micros {
  return open
    .filter((c) => c.resource === resource.resource)
    .reduce((most, c) => max(most, toMicros(c.hourly) ?? 0n), resource.inFlight ?? 0n);
}

/** What a call asks of the namespace: the resource's hourly amount once the call has acted. */
export interface SpendRequest {
  resource: string;
  uid: string;
  hourly: Micros;
}

/** The decision on one limit: room, or what a person must know to make room. */
export type SpendVerdict =
  | { admitted: true; spend: NamespaceSpend; adds: Micros }
  | { admitted: false; spend: NamespaceSpend; adds: Micros };

/**
 * Admitted when the namespace's spend with the resource at `request.hourly` (its own open
 * commitment and stated cost replaced) stays within the limit. Pure.
 */
export function decide(
  limit: Micros,
  resources: readonly CostedResource[],
  commitments: readonly Commitment[],
  request: SpendRequest,
  now: Date,
  ttlMs: number,
): SpendVerdict {
  const spend = namespaceSpend(resources, commitments, now, ttlMs);
  const own = resources.find((r) => r.resource === request.resource);
  const ownNow = own === undefined ? 0n : max(own.cost ?? 0n, roomOf(own, spend.open));
  const adds = request.hourly > ownNow ? request.hourly - ownNow : 0n;
  const admitted = spend.used + spend.committed + adds <= limit;
  return { admitted, spend, adds };
}

function max(a: Micros, b: Micros): Micros {
  return a > b ? a : b;
}

/** The refusals with this resource's kept at its first time (its place in line), newest amount. */
export function withRefused(list: readonly RefusedSpend[], entry: RefusedSpend): RefusedSpend[] {
  const previous = list.find((r) => r.resource === entry.resource);
  const kept = { ...entry, since: previous?.since ?? entry.since };
  return [...list.filter((r) => r.resource !== entry.resource), kept].sort((a, b) =>
    a.since.localeCompare(b.since),
  );
}

/** The message of a refusal of a call berth can't price: what it is, why, and what to do. */
export function unpricedMessage(limitName: string, doing: string, why: string): string {
  return (
    `${doing} can't be priced: ${why}. Under SpendLimit ${limitName} a call berth can't price is not sent ` +
    "(a namespace without a SpendLimit is not affected); nothing was called: change the spec back, or ask an admin " +
    "to lift the SpendLimit for this change"
  );
}

/** The message of a refusal: the limit, the namespace's spend, what the call adds, and what to raise. */
export function refusalMessage(
  limitName: string,
  limit: Micros,
  verdict: SpendVerdict,
  doing: string,
): string {
  const { used, committed } = verdict.spend;
  return (
    `${doing} would add ${formatMicros(verdict.adds)}/h to this namespace's spend of ${formatMicros(used + committed)}/h ` +
    `(${formatMicros(used)} used, ${formatMicros(committed)} committed), past SpendLimit ${limitName}'s ` +
    `maxHourlyCost ${formatMicros(limit)}; nothing was called: ask an admin to raise spec.maxHourlyCost of ` +
    `SpendLimit ${limitName}, or free spend in this namespace`
  );
}
