import { setTimeout as sleep } from "node:timers/promises";
import { z } from "zod";
import { annotations } from "../../src/api/meta.ts";
import { isKubeError } from "../../src/runtime/index.ts";
import type { Cluster, Kind, Manifest, Resource } from "./cluster.ts";
import { summary } from "./invariants.ts";
import { type Ledger, statusId, type Tracked } from "./ledger.ts";
import { retried } from "./load.ts";
import type { AdoptEvent, CopyEvent, RestoreEvent } from "./ownership-plan.ts";

/** What the ownership faults act on: the cluster, and the ledger that tracks copies, adopters and restores. */
export interface OwnershipWorld {
  cluster: Pick<Cluster, "get" | "apply" | "delete" | "patchSpec">;
  ledger: Ledger;
  /** The manifests `berth import` prints for the account now (the import workflow applies one). */
  importManifests?: () => Promise<{ kind: string; spec: Record<string, unknown> }[]>;
  /** Counts each adoption by what it adopted ("adopt growth order", "berth import then ["*"]"). */
  moves?: Map<string, number>;
}

/** Thrown when an ownership fault finds nothing to act on (a source that never managed an object, say). */
export class OwnershipNotApplied extends Error {
  readonly code = "fault_not_applied";
}

/** How long a source may take to show the object it manages, and a restored resource to go. */
const waitMs = 90_000;

/** The spec field that names a kind's object when adopting it. */
const adoptField: Partial<Record<Kind, string>> = {
  Project: "projectId",
  App: "appId",
  Grid: "gridId",
  ServerOrder: "orderId",
};

/** Applies a copy of the source's manifest, claim included, then deletes it when planned. */
export async function applyCopy(world: OwnershipWorld, event: CopyEvent): Promise<void> {
  const source = await managed(world, event.source);
  const { labels, annotations: kept, finalizers } = source.metadata;
  const copy = tracked(world.ledger, event.copy.key);
  const metadata: Manifest["metadata"] = {
    name: event.copy.name,
    namespace: event.copy.namespace,
    ...(labels === undefined ? {} : { labels }),
    ...(kept === undefined ? {} : { annotations: kept }),
    ...(finalizers === undefined ? {} : { finalizers }),
  };
  copy.spec = { ...source.spec, deletionPolicy: "Delete" };
  await create(world, copy, metadata);
  await deleteLater(world, copy, event.deleteAfterSec);
}

/** Creates a resource naming the source's object by spec ID, then deletes it when planned. */
export async function applyAdoption(world: OwnershipWorld, event: AdoptEvent): Promise<void> {
  const source = await managed(world, event.source);
  const { kind } = event.adopter;
  const field = adoptField[kind];
  const { id, what } = adoptedId(kind, source, event.orderOf);
  if (field === undefined || id === undefined)
    throw new OwnershipNotApplied(`${kind} is not adopted by spec ID`);
  const adopter = tracked(world.ledger, event.adopter.key);
  if (event.importSwitchSec !== undefined) {
    await importThenManage(world, event, adopter, id);
    count(world, `berth import of a ${kind}, then ["*"]`);
  } else {
    adopter.spec = { ...source.spec, [field]: id, deletionPolicy: "Delete" };
    await create(world, adopter, { name: event.adopter.name, namespace: event.adopter.namespace });
    count(world, `adopt ${kind} by ${what}`);
  }
  await deleteLater(world, adopter, event.deleteAfterSec);
}

function count(world: OwnershipWorld, what: string): void {
  world.moves?.set(what, (world.moves.get(what) ?? 0) + 1);
}

const heldOrdersSchema = z.looseObject({
  growthOrders: z.array(z.looseObject({ id: z.string().optional() })).optional(),
  replacements: z.array(z.looseObject({ orderId: z.string().optional() })).optional(),
});

/** The ID an adoption names: a ServerOrder's growth or replacement order when asked and held, else the first. */
function adoptedId(
  kind: Kind,
  source: Resource,
  orderOf: AdoptEvent["orderOf"],
): { id: string | undefined; what: string } {
  const first = { id: statusId(kind, source), what: kind === "ServerOrder" ? "its first order" : "its ID" };
  if (kind !== "ServerOrder" || orderOf === undefined || orderOf === "first") return first;
  const held = heldOrdersSchema.safeParse(source.status).data;
  const ids =
    orderOf === "growth"
      ? (held?.growthOrders ?? []).map((g) => g.id)
      : (held?.replacements ?? []).map((r) => r.orderId);
  const id = ids.filter((x): x is string => x !== undefined).at(-1);
  return id === undefined ? first : { id, what: `a ${orderOf} order` };
}

/**
 * The `berth import` workflow: the manifest it prints for the object (Observe only) applied under
 * the adopter's name, then switched to ["*"] as the policies guide says.
 */
async function importThenManage(world: OwnershipWorld, event: AdoptEvent, adopter: Tracked, id: string) {
  if (world.importManifests === undefined) throw new OwnershipNotApplied("no importer in the run");
  const manifests = await world.importManifests();
  const { kind, namespace, name } = event.adopter;
  const field = adoptField[kind] ?? "";
  const manifest = manifests.find((m) => m.kind === kind && m.spec[field] === id);
  if (manifest === undefined) throw new OwnershipNotApplied(`berth import printed no ${kind} for ${id}`);
  adopter.spec = { ...manifest.spec, deletionPolicy: "Delete" };
  await create(world, adopter, { name, namespace });
  await sleep((event.importSwitchSec ?? 0) * 1000);
  adopter.spec.managementPolicies = ["*"];
  await retried(() => world.cluster.patchSpec(kind, namespace, name, { managementPolicies: ["*"] }));
}

/**
 * A restore: the resource deleted with deletionPolicy Orphan and, once gone, re-created from its
 * metadata (name, labels, annotations) and spec with its own deletionPolicy and no status. The
 * export is the last reading before it went: berth may act until it lets go (an order placed right
 * after approval), and a backup taken before that does not know it (the guide: stop berth, or set
 * Orphan, before the backup).
 */
export async function restore(world: OwnershipWorld, event: RestoreEvent): Promise<void> {
  const target = tracked(world.ledger, event.target);
  if (!target.created || target.deleteRequestedAt !== undefined)
    throw new OwnershipNotApplied(`${event.target} is not there to restore`);
  target.restoringSince = Date.now();
  try {
    await deleteAndRecreate(world, target);
  } finally {
    target.restoringSince = undefined;
  }
}

async function deleteAndRecreate(world: OwnershipWorld, target: Tracked): Promise<void> {
  const { kind, namespace, name, key } = target.plan;
  const found = await retried(() => world.cluster.get(kind, namespace, name));
  if (found === undefined) throw new OwnershipNotApplied(`${key} is not in the cluster`);
  const policy = found.spec?.deletionPolicy ?? target.plan.policy;
  await retried(() => world.cluster.patchSpec(kind, namespace, name, { deletionPolicy: "Orphan" }));
  await retried(() => world.cluster.delete(kind, namespace, name));
  const last = await lastBeforeGone(world, target, found);
  const { labels, annotations: kept } = last.metadata;
  const metadata: Manifest["metadata"] = {
    name,
    namespace,
    ...(labels === undefined ? {} : { labels }),
    ...(kept === undefined ? {} : { annotations: kept }),
  };
  await create(world, target, metadata, { ...(last.spec ?? target.spec), deletionPolicy: policy });
}

/** Reads the resource until it is gone; the last reading. */
async function lastBeforeGone(world: OwnershipWorld, target: Tracked, first: Resource): Promise<Resource> {
  const { kind, namespace, name, key } = target.plan;
  const deadline = Date.now() + waitMs;
  let last = first;
  while (Date.now() < deadline) {
    const found = await retried(() => world.cluster.get(kind, namespace, name));
    if (found === undefined) return last;
    last = found;
    await sleep(50);
  }
  throw new OwnershipNotApplied(
    `${key} deleted with Orphan still there after ${waitMs / 1000} s: ${summary(last)}`,
  );
}

/** The source as the cluster has it once it manages its object (the identity annotation is written). */
async function managed(world: OwnershipWorld, key: string): Promise<Resource> {
  const { kind, namespace, name } = tracked(world.ledger, key).plan;
  const deadline = Date.now() + waitMs;
  let found: Resource | undefined;
  while (Date.now() < deadline) {
    found = await retried(() => world.cluster.get(kind, namespace, name));
    if (
      found?.metadata.annotations?.[annotations.externalId] !== undefined &&
      statusId(kind, found) !== undefined
    )
      return found;
    await sleep(1000);
  }
  throw new OwnershipNotApplied(`${key} manages no object after ${waitMs / 1000} s: ${summary(found)}`);
}

async function create(
  world: OwnershipWorld,
  target: Tracked,
  metadata: Manifest["metadata"],
  spec: Record<string, unknown> = target.spec,
): Promise<void> {
  try {
    await retried(() => world.cluster.apply(target.plan.kind, metadata, spec));
  } catch (error) {
    // A create whose answer was lost (the apiserver restarting) may have happened.
    if (!isKubeError(error, "conflict")) throw error;
  }
  target.created = true;
  target.createdAt = Date.now();
}

async function deleteLater(
  world: OwnershipWorld,
  target: Tracked,
  afterSec: number | undefined,
): Promise<void> {
  if (afterSec === undefined) return;
  await sleep(afterSec * 1000);
  const { kind, namespace, name } = target.plan;
  target.deleteRequestedAt = Date.now();
  await retried(() => world.cluster.delete(kind, namespace, name));
}

function tracked(ledger: Ledger, key: string): Tracked {
  const found = ledger.get(key);
  if (found === undefined) throw new OwnershipNotApplied(`${key} is not in the ledger`);
  return found;
}
