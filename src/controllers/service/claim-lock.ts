import { z } from "zod";
import { isKubeError, type KubeClient, microTime } from "../../runtime/index.ts";
import type { Claim } from "./claims.ts";

// The claim's arbiter. A claim recorded on the resource alone (patch, then list the claimants) lets
// two claimants whose writes cross within one apiserver round trip both hold: each one's list may
// miss the other's patch, and their clocks need not agree on who came first. So a new claim is
// first taken as a Lease named from the external object, in the operator's namespace: a create
// (or an update under the resourceVersion read) succeeds for one claimant only. The resource's own
// annotations stay the durable record (a restore keeps them); the Lease only decides races.

/** Where the claim Leases live: the operator's namespace. */
export interface ClaimLocks {
  kube: KubeClient;
  namespace: string;
}

/** How long a Lease whose holder has not recorded its claim yet still keeps others out (its claim is under way). */
export const claimUnderWayMs = 30_000;

const leaseSchema = z.looseObject({
  metadata: z.looseObject({ resourceVersion: z.string() }),
  spec: z.looseObject({ holderIdentity: z.string().optional(), renewTime: z.string().optional() }).optional(),
});

type Lease = z.infer<typeof leaseSchema>;

/** The Lease of the object whose claim value is `value` (see `claimValue`): 52 characters. */
export function claimLockName(value: string): string {
  return `berth-claim-${value}`;
}

/** The lock taken, or the claim (or claim under way) that holds the object. */
export type LockTaken = { taken: true } | { taken: false; holder: Claim };

/** What the apiserver says of the claimant a Lease names: gone, or there with or without its claim recorded. */
export type LeaseHolderState = { gone: true } | { gone: false; claim: Claim | undefined };

/**
 * What a Lease that names another claimant means. The holder's own metadata holds the claim: it
 * holds the object. It is there without it (yet): within `claimUnderWayMs` of the Lease's time its
 * claim is under way, and it holds; after that, the Lease is free (its holder let go). The holder
 * is gone: the Lease is free. Pure.
 */
export function lockHolder(
  holder: string,
  since: number,
  state: LeaseHolderState,
  now: number,
): Claim | undefined {
  if (state.gone) return undefined;
  if (state.claim !== undefined) return state.claim;
  if (Number.isNaN(since) || now - since >= claimUnderWayMs) return undefined;
  const [namespace = "", name = ""] = holder.split("/");
  return { namespace, name, uid: "", claimedAt: since };
}

/**
 * Takes the claim Lease for `me` (`namespace/name`), at most one claimant at a time. `holds` reads
 * the claimant a Lease names, and its recorded claim on the object, from the apiserver. Throws after repeated
 * conflicts (the reconcile is tried again).
 */
export async function takeClaimLock(
  locks: ClaimLocks,
  value: string,
  me: string,
  now: number,
  holds: (holder: string) => Promise<LeaseHolderState>,
): Promise<LockTaken> {
  const path = `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(locks.namespace)}/leases`;
  const name = claimLockName(value);
  for (let attempt = 0; ; attempt++) {
    try {
      const lease = await readLease(locks.kube, `${path}/${name}`);
      if (lease === undefined) {
        await writeLease(locks, "POST", path, name, me, now, undefined);
        return { taken: true };
      }
      const holder = lease.spec?.holderIdentity ?? "";
      if (holder === me) return { taken: true };
      if (holder !== "") {
        const since = Date.parse(lease.spec?.renewTime ?? "");
        const held = lockHolder(holder, since, await holds(holder), now);
        if (held !== undefined) return { taken: false, holder: held };
      }
      await writeLease(locks, "PUT", `${path}/${name}`, name, me, now, lease.metadata.resourceVersion);
      return { taken: true };
    } catch (error) {
      // Another claimant wrote the Lease first: read it again and decide on what it says now.
      if (!isKubeError(error, "conflict") || attempt >= 4) throw error;
    }
  }
}

/** Frees the Lease if it still names `me` (a claim taken back after meeting an earlier holder). */
export async function freeClaimLock(
  locks: ClaimLocks,
  value: string,
  me: string,
  now: number,
): Promise<void> {
  const name = claimLockName(value);
  const path = `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(locks.namespace)}/leases`;
  const lease = await readLease(locks.kube, `${path}/${name}`);
  if (lease === undefined || lease.spec?.holderIdentity !== me) return;
  await writeLease(locks, "PUT", `${path}/${name}`, name, "", now, lease.metadata.resourceVersion).catch(
    (error: unknown) => {
      if (!isKubeError(error, "conflict")) throw error;
    },
  );
}

async function readLease(kube: KubeClient, path: string): Promise<Lease | undefined> {
  try {
    return leaseSchema.parse(await kube.call("GET", path));
  } catch (error) {
    if (isKubeError(error, "not_found")) return undefined;
    throw error;
  }
}

async function writeLease(
  locks: ClaimLocks,
  method: "POST" | "PUT",
  path: string,
  name: string,
  holder: string,
  now: number,
  resourceVersion: string | undefined,
): Promise<void> {
  const metadata = {
    name,
    namespace: locks.namespace,
    labels: { "app.kubernetes.io/managed-by": "berth", "berth.dev/lease": "claim" },
    ...(resourceVersion === undefined ? {} : { resourceVersion }),
  };
  const spec = {
    holderIdentity: holder,
    leaseDurationSeconds: claimUnderWayMs / 1000,
    renewTime: microTime(now),
  };
  await locks.kube.call(method, path, {
    body: { apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata, spec },
  });
}
