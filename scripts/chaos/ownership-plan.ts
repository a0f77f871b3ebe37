import type { Kind } from "./cluster.ts";
import { type LoadPlan, type PlannedResource, type PlannedUpdate, resourceKey } from "./plan.ts";
import type { Random } from "./random.ts";

// The ownership faults of issues #34 and #35, planned on top of the load: copies of managed
// resources, adoptions by spec ID of managed objects, restores without status, and spending calls
// slower than the client's timeout with a delete or an edit of the resource meanwhile.

/** A copy of `source`'s manifest (labels, annotations, finalizers) applied as `copy`, deleted `deleteAfterSec` later (or never). */
export interface CopyEvent {
  at: number;
  type: "copy";
  source: string;
  copy: PlannedResource;
  deleteAfterSec: number | undefined;
}

/**
 * `adopter` names by spec ID the object `source` manages; deleted `deleteAfterSec` later (or never).
 * A ServerOrder adopts one of the orders its source holds (`orderOf`: its first, a growth or a
 * replacement order). `importSwitchSec`: the `berth import` workflow, the adopter applied from the
 * manifest `berth import` prints (Observe only), switched to ["*"] that many seconds later.
 */
export interface AdoptEvent {
  at: number;
  type: "adopt";
  source: string;
  adopter: PlannedResource;
  deleteAfterSec: number | undefined;
  orderOf?: "first" | "growth" | "replacement";
  importSwitchSec?: number;
}

/** `target` exported (metadata and spec), deleted with Orphan, re-created without status; `after`: the change it follows. */
export interface RestoreEvent {
  at: number;
  type: "restore";
  target: string;
  after: string | undefined;
}

/** Spending calls answer `latencyMs` late (past the client's timeout) for `seconds`; `target` is created in it, then deleted or edited. */
export interface SlowSpendEvent {
  at: number;
  type: "slowSpend";
  seconds: number;
  latencyMs: number;
  target: string;
  action: "delete" | "edit";
}

export type OwnershipEvent = CopyEvent | AdoptEvent | RestoreEvent | SlowSpendEvent;

export interface OwnershipSetting {
  chaosSec: number;
  /** The operator client's timeout for writes. */
  writeTimeoutMs: number;
}

/** The calls that add spend: a slow one is in doubt once the client gave up on it. */
export const spendingOperations = [
  "createApp",
  "startApp",
  "provisionServers",
  "replaceServer",
  "powerServers",
];

/** What an edit made during a slow spending call is called in the load counts. */
export const slowEditWhat = "edit during a slow spending call";

/** Changes after which a restore finds intents that may still act (a move, an order, a removal, a wake). */
const anchors = new Set([
  "App move",
  "App move retargeted",
  "ServerOrder approved",
  "ServerOrder approved again",
  "ServerOrder count grown",
  "ServerOrder count shrunk",
  "ServerOrder woken",
]);
/** Seconds a restore may take; its target is not deleted meanwhile (other load on it waits for it). */
const restoreRoom = 15;
/** Seconds after its create a source is expected to manage its object. */
const managedAfter = 25;

/**
 * The ownership faults over the chaos. Mutates `plan` for the slow spending calls (the delete or
 * edit during them is a load action); sources of copies and adoptions, restore targets and slow
 * targets are distinct, so a restore (a deletion with Orphan) never hands a source to its copy.
 */
export function planOwnershipFaults(
  random: Random,
  plan: LoadPlan,
  setting: OwnershipSetting,
): OwnershipEvent[] {
  const used = new Set<string>();
  const scale = Math.max(1, Math.round(setting.chaosSec / 150));
  const events: OwnershipEvent[] = [];
  const slow = planSlowSpend(random, plan, setting, used);
  if (slow !== undefined) events.push(slow);
  for (let i = 0; i < 3 * scale; i++) {
    const anchor = i % 3 === 0 ? 0 : i % 3 === 1 ? 1 : undefined;
    const restore = planRestore(random, plan, setting, used, anchor);
    if (restore !== undefined) events.push(restore);
  }
  for (let i = 0; i < 3 * scale; i++) {
    const copy = planCopy(random, plan, setting, used, i);
    if (copy !== undefined) events.push(copy);
  }
  for (let i = 0; i < 2 * scale; i++) {
    const adopt = planAdopt(random, plan, setting, used, i);
    if (adopt !== undefined) events.push(adopt);
  }
  for (const orderOf of ["growth", "replacement", "first"] as const) {
    const adopt = planOrderAdopt(random, plan, setting, used, orderOf);
    if (adopt !== undefined) events.push(adopt);
  }
  for (let i = 0; i < 2 * scale; i++) {
    const imported = planAdopt(random, plan, setting, used, 10 + i);
    if (imported !== undefined) events.push({ ...imported, importSwitchSec: random.between(5, 15) });
  }
  return events.sort((a, b) => a.at - b.at);
}

/** The resources the copies and adopters add to the ledger. */
export function ownershipResources(events: readonly OwnershipEvent[]): PlannedResource[] {
  return events.flatMap((e) => (e.type === "copy" ? [e.copy] : e.type === "adopt" ? [e.adopter] : []));
}

/** The last moment of chaos anything is changed. */
function lastChange(setting: OwnershipSetting): number {
  return 0.9 * setting.chaosSec;
}

function planSlowSpend(
  random: Random,
  plan: LoadPlan,
  setting: OwnershipSetting,
  used: Set<string>,
): SlowSpendEvent | undefined {
  const t = setting.chaosSec;
  const spends = (r: PlannedResource) =>
    r.kind === "App" || (r.order !== undefined && !r.order.overBudget && r.spec.approved === true);
  const candidates = plan.resources.filter((r) => spends(r) && r.createAt > 0.1 * t && r.createAt < 0.6 * t);
  if (candidates.length === 0) return undefined;
  const target = random.pick(candidates);
  used.add(target.key);
  const timeoutSec = setting.writeTimeoutMs / 1000;
  const latencyMs = setting.writeTimeoutMs + random.int(1500, 4000);
  const actAt = target.createAt + timeoutSec + random.between(0.3, 1);
  const action = random.chance(0.5) ? "delete" : "edit";
  if (action === "delete") {
    target.deleteAt = actAt;
    target.updates = target.updates.filter((u) => u.at < actAt);
  } else {
    target.updates.push(slowEdit(target, actAt));
    target.updates.sort((a, b) => a.at - b.at);
  }
  return {
    at: target.createAt - 0.3,
    type: "slowSpend",
    // Long enough that some spending call comes in it (the target's may wait for its project).
    seconds: latencyMs / 1000 + 12,
    latencyMs,
    target: target.key,
    action,
  };
}

/** An edit that bumps the generation while the create is in doubt: a new image, one server fewer, or autoReplace turned over. */
function slowEdit(target: PlannedResource, at: number): PlannedUpdate {
  if (target.kind === "App")
    return { at, what: slowEditWhat, type: "patch", patch: { image: "nginx:1.27.99" } };
  const count = Number(target.spec.count);
  const patch = count > 1 ? { count: count - 1 } : { autoReplace: target.spec.autoReplace !== true };
  return { at, what: slowEditWhat, type: "patch", patch };
}

/**
 * A restore of an App or ServerOrder: `anchor` 0 right after an App move, 1 right after a count
 * change (intents may still act), undefined at a random moment. Its target has no other load for
 * `restoreRoom` seconds and lives on after it.
 */
function planRestore(
  random: Random,
  plan: LoadPlan,
  setting: OwnershipSetting,
  used: Set<string>,
  anchor: 0 | 1 | undefined,
): RestoreEvent | undefined {
  const kind: Kind =
    anchor === 0 ? "App" : anchor === 1 ? "ServerOrder" : random.pick(["App", "ServerOrder"]);
  const moments: { target: PlannedResource; at: number; after: string | undefined }[] = [];
  const eligible = (r: PlannedResource) =>
    r.kind === kind && !used.has(r.key) && (anchor !== undefined || managesAtOnce(r));
  for (const target of plan.resources.filter(eligible)) {
    const options =
      anchor === undefined
        ? [{ at: random.between(target.createAt + managedAfter, lastChange(setting)), after: undefined }]
        : target.updates
            .filter((u) => anchors.has(u.what))
            .map((u) => ({ at: u.at + random.between(0.3, 1.5), after: u.what }));
    for (const option of options) {
      if (restorable(target, option.at, setting)) moments.push({ target, ...option });
    }
  }
  if (moments.length === 0) return undefined;
  const { target, at, after } = random.pick(moments);
  used.add(target.key);
  return { at, type: "restore", target: target.key, after };
}

function restorable(target: PlannedResource, at: number, setting: OwnershipSetting): boolean {
  const end = at + restoreRoom;
  return (
    at > target.createAt + managedAfter &&
    end < lastChange(setting) &&
    (target.deleteAt === undefined || target.deleteAt > end)
  );
}

/** Copies and adoptions come in the middle of the chaos, once the source manages its object. */
function copyTime(random: Random, source: PlannedResource, setting: OwnershipSetting): number {
  const t = setting.chaosSec;
  return random.between(Math.max(0.3 * t, source.createAt + managedAfter), 0.7 * t);
}

/** Managing an object from its create on: not a ServerOrder waiting for approval or over budget. */
function managesAtOnce(r: PlannedResource): boolean {
  return r.order === undefined || (!r.order.overBudget && r.spec.approved === true);
}

/**
 * A source of one of `kinds` (else of any of `fallback`) that manages an object in the middle of
 * the chaos and lives to the end: its copy or adopter never outlives it, nor takes its object over.
 */
function pickSource(
  random: Random,
  plan: LoadPlan,
  setting: OwnershipSetting,
  kinds: readonly Kind[],
  used: Set<string>,
  fallback: readonly Kind[] = ["Project", "App", "Grid", "ServerOrder"],
): PlannedResource | undefined {
  const of = (wanted: readonly Kind[]) =>
    plan.resources.filter(
      (r) =>
        wanted.includes(r.kind) &&
        !used.has(r.key) &&
        r.createAt + managedAfter < 0.7 * setting.chaosSec &&
        r.deleteAt === undefined &&
        managesAtOnce(r),
    );
  const preferred = of(kinds);
  const candidates = preferred.length > 0 ? preferred : of(fallback);
  return candidates.length === 0 ? undefined : random.pick(candidates);
}

/**
 * How long a copy or adopter in `namespace` may live from `at`: an App or ServerOrder names a
 * Project or Grid, whose deletion waits for every resource naming it, so it goes before the first
 * of them is deleted. `style` 0: deleted at once (before the operator reconciled it); 1: seconds
 * later; 2: kept to the end when nothing it names is deleted.
 */
function lifetime(
  random: Random,
  plan: LoadPlan,
  setting: OwnershipSetting,
  kind: Kind,
  namespace: string,
  at: number,
  style: number,
): number | undefined {
  const referenced = kind === "App" || kind === "ServerOrder";
  const blocking = plan.resources
    .filter((r) => referenced && r.namespace === namespace && (r.kind === "Project" || r.kind === "Grid"))
    .map((r) => r.deleteAt)
    .filter((d): d is number => d !== undefined && d > at);
  const room = Math.min(lastChange(setting), ...blocking) - at - 2;
  if (style === 0 || room < 2) return random.between(0, 0.5);
  if (style === 2 && blocking.length === 0) return undefined;
  return random.between(Math.min(5, room / 2), Math.min(40, room));
}

function planCopy(
  random: Random,
  plan: LoadPlan,
  setting: OwnershipSetting,
  used: Set<string>,
  i: number,
): CopyEvent | undefined {
  const style = i % 3;
  const kinds: Kind[][] = [["App"], ["ServerOrder"], ["Project", "Grid"]];
  const source = pickSource(random, plan, setting, kinds[i % kinds.length] ?? [], used);
  if (source === undefined) return undefined;
  const at = copyTime(random, source, setting);
  used.add(source.key);
  const namespace = style === 1 ? otherNamespace(random, plan, source.namespace) : source.namespace;
  const name = `${source.name}-copy-${i}`;
  const deleteAfterSec = lifetime(random, plan, setting, source.kind, namespace, at, style);
  const copy = extra(source, namespace, name, at, deleteAfterSec, "copy");
  return { at, type: "copy", source: source.key, copy, deleteAfterSec };
}

function planAdopt(
  random: Random,
  plan: LoadPlan,
  setting: OwnershipSetting,
  used: Set<string>,
  i: number,
): AdoptEvent | undefined {
  const kinds: Kind[][] = [["App"], ["Project", "Grid"]];
  const source = pickSource(random, plan, setting, kinds[i % kinds.length] ?? [], used, [
    "Project",
    "App",
    "Grid",
  ]);
  if (source === undefined) return undefined;
  const at = copyTime(random, source, setting);
  used.add(source.key);
  const namespace = random.chance(0.5) ? source.namespace : otherNamespace(random, plan, source.namespace);
  const deleteAfterSec = lifetime(random, plan, setting, source.kind, namespace, at, 1 + (i % 2));
  const adopter = extra(source, namespace, `${source.name}-adopt-${i}`, at, deleteAfterSec, "adopter");
  return { at, type: "adopt", source: source.key, adopter, deleteAfterSec };
}

/** The day-2 changes after which a ServerOrder holds an order of that sort. */
const holdsAfter: Record<"growth" | "replacement", readonly string[]> = {
  growth: ["ServerOrder count grown"],
  replacement: ["ServerOrder replace-server annotation", "a server failed at the service"],
};

/**
 * A ServerOrder of the same namespace (its grids are there) adopting by spec.orderId one of the
 * orders a source holds: a growth order after the source grew, a replacement after one of its
 * servers was replaced, else its first order. Its source outlives it and shrinks nothing meanwhile.
 */
function planOrderAdopt(
  random: Random,
  plan: LoadPlan,
  setting: OwnershipSetting,
  used: Set<string>,
  orderOf: "growth" | "replacement" | "first",
): AdoptEvent | undefined {
  const last = 0.8 * setting.chaosSec;
  // The source outlives the adopter by some seconds: it is there to hold its order all along.
  const lasts = (r: PlannedResource, at: number) =>
    at < last && (r.deleteAt === undefined || r.deleteAt > at + 20);
  const moments = plan.resources.flatMap((r) => {
    if (r.kind !== "ServerOrder" || used.has(r.key) || !managesAtOnce(r)) return [];
    if (orderOf === "first")
      return lasts(r, r.createAt + managedAfter) ? [{ source: r, at: r.createAt + managedAfter }] : [];
    const after = r.updates.find((u) => holdsAfter[orderOf].includes(u.what));
    if (
      after === undefined ||
      (orderOf === "replacement" &&
        r.spec.autoReplace !== true &&
        after.what !== "ServerOrder replace-server annotation")
    )
      return [];
    const at = after.at + 15;
    return lasts(r, at) ? [{ source: r, at }] : [];
  });
  if (moments.length === 0) return undefined;
  const { source, at } = random.pick(moments);
  used.add(source.key);
  const planned = lifetime(random, plan, setting, "ServerOrder", source.namespace, at, 1);
  const room = source.deleteAt === undefined ? undefined : source.deleteAt - at - 5;
  const deleteAfterSec = room === undefined ? planned : Math.min(planned ?? room, room);
  const adopter = extra(
    source,
    source.namespace,
    `${source.name}-adopt-${orderOf}`,
    at,
    deleteAfterSec,
    "adopter",
  );
  return { at, type: "adopt", source: source.key, adopter, deleteAfterSec, orderOf };
}

function otherNamespace(random: Random, plan: LoadPlan, namespace: string): string {
  return random.pick(plan.namespaces.filter((n) => n.name !== namespace)).name;
}

/** The ledger's entry for a copy or adopter; its spec is filled in from the source when it is applied. */
function extra(
  source: PlannedResource,
  namespace: string,
  name: string,
  at: number,
  deleteAfterSec: number | undefined,
  type: "copy" | "adopter",
): PlannedResource {
  return {
    kind: source.kind,
    namespace,
    name,
    key: resourceKey(namespace, source.kind, name),
    policy: "Delete",
    spec: {},
    createAt: at,
    deleteAt: deleteAfterSec === undefined ? undefined : at + deleteAfterSec,
    updates: [],
    order: undefined,
    role: { type, source: source.key },
  };
}
