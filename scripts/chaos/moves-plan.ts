import { namespaceAnnotations } from "../../src/api/meta.ts";
import type { Kind } from "./cluster.ts";
import { credentialFields, type LoadPlan, type PlannedResource, resourceKey, serviceName } from "./plan.ts";
import type { Random } from "./random.ts";
import type { SpendLimitPlan } from "./spend.ts";

// The moves of issue 44, planned from the seed on top of the load: Namespace annotations set and
// removed (pauses across operator restarts, management and deletion defaults, values berth can't
// read), creates held while a person makes a same-named object at the service, the SpendLimit
// raised, lowered, deleted and re-created, and managementPolicies switched to Observe and back.

/**
 * A Namespace annotation set for `seconds`, then removed; `holds`: berth must make no changing
 * call for the namespace meanwhile (a pause, an Observe-only default, a value it can't read);
 * `restart`: the operator is killed and restarted while it is set.
 */
export interface NamespaceNoteEvent {
  at: number;
  type: "namespaceNote";
  namespace: string;
  annotation: string;
  value: string;
  seconds: number;
  holds: boolean;
  restart: boolean;
}

/**
 * A create berth must hold (its namespace paused, its policies without Create, or the SpendLimit
 * lowered below it) while a person makes an object of the same name at the service with a key of
 * their own; the operator restarts meanwhile, then the hold is lifted `seconds` after `at`. The
 * resource must end with an object of its own, the person's untouched.
 */
export interface HeldCreateEvent {
  at: number;
  type: "heldCreate";
  hold: "pause" | "noCreate" | "spendLimit";
  resource: PlannedResource;
  /** An App's project (a long-lived Project of the namespace): the person's app goes into it. */
  project: PlannedResource | undefined;
  seconds: number;
}

/** The SpendLimit's maxHourlyCost set to `factor` × the planned limit, deleted, or re-created (at the planned limit). */
export interface SpendLimitEvent {
  at: number;
  type: "spendLimit";
  action: "raise" | "lower" | "delete" | "recreate";
  factor: number;
}

export type MoveEvent = NamespaceNoteEvent | HeldCreateEvent | SpendLimitEvent;

export const moveTypes = ["namespaceNote", "heldCreate", "spendLimit"] as const;

/** What a policy switch is counted as in the load. */
export const policySwitch = {
  out: "managementPolicies switched to Observe",
  back: 'managementPolicies switched back to ["*"]',
};

export interface MoveSetting {
  chaosSec: number;
  /** The SpendLimit the run starts with. */
  limit: SpendLimitPlan | undefined;
}

/** Values of each Namespace annotation: readable ones (and whether they hold changes), then ones berth can't read. */
const noteValues: Record<string, { value: string; holds: boolean }[]> = {
  [namespaceAnnotations.paused]: [{ value: "true", holds: true }],
  [namespaceAnnotations.managementPolicies]: [
    { value: "Observe", holds: true },
    { value: "Observe,Create,Update", holds: false },
  ],
  [namespaceAnnotations.deletionPolicy]: [{ value: "Orphan", holds: false }],
};
/** Values no annotation takes: berth must hold changes in the namespace and say so. */
const unreadable = ["yes", "observe", "orphan", "ture", "Observe;Update"];

/** Seconds a Namespace annotation stays: below the minute an annotation's echo may wait. */
const noteSeconds: [number, number] = [8, 20];

/** The moves over the chaos; mutates `plan` for the policy switches (load updates). */
export function planMoves(random: Random, plan: LoadPlan, setting: MoveSetting): MoveEvent[] {
  const t = setting.chaosSec;
  const events: MoveEvent[] = [];
  const scale = Math.max(1, Math.round(t / 150));
  // Every annotation at least once with a readable value and once with one berth can't read.
  const notes = Object.values(namespaceAnnotations);
  for (let i = 0; i < notes.length * 2 * scale; i++) {
    const annotation = notes[i % notes.length] ?? namespaceAnnotations.paused;
    const readable = Math.floor(i / notes.length) % 2 === 0;
    events.push(noteEvent(random, plan, setting, annotation, readable, i));
  }
  const holds: HeldCreateEvent["hold"][] = ["pause", "noCreate"];
  if (setting.limit !== undefined) holds.push("spendLimit");
  for (let i = 0; i < holds.length * scale; i++) {
    const held = heldCreate(random, plan, setting, holds[i % holds.length] ?? "pause", i);
    if (held !== undefined) events.push(held);
  }
  if (setting.limit !== undefined) events.push(...spendLimitMoves(random, t));
  planPolicySwitches(random, plan, setting, 2 * scale);
  return events.sort((a, b) => a.at - b.at);
}

/** The resources the held creates add to the ledger. */
export function moveResources(events: readonly MoveEvent[]): PlannedResource[] {
  return events.flatMap((e) => (e.type === "heldCreate" ? [e.resource] : []));
}

/**
 * A readable value, or one berth can't read, of `annotation` on a namespace for some seconds.
 * An Observe-only default comes only where no resource is deleted meanwhile (a deletion then
 * releases without Delete, by design); elsewhere the value berth can't read holds instead.
 */
function noteEvent(
  random: Random,
  plan: LoadPlan,
  setting: MoveSetting,
  annotation: string,
  readable: boolean,
  i: number,
): NamespaceNoteEvent {
  const t = setting.chaosSec;
  const namespace = random.pick(plan.namespaces).name;
  const at = random.between(0.1 * t, 0.8 * t);
  const seconds = random.between(...noteSeconds);
  const options = noteValues[annotation] ?? [];
  let choice = readable && options.length > 0 ? random.pick(options) : undefined;
  const observeOnly = choice?.value === "Observe";
  if (observeOnly && deletesWithin(plan, namespace, at - 3, at + seconds + 5)) choice = undefined;
  const value = choice?.value ?? random.pick(unreadable);
  return {
    at,
    type: "namespaceNote",
    namespace,
    annotation,
    value,
    seconds,
    holds: choice?.holds ?? true,
    restart: annotation === namespaceAnnotations.paused || i % 3 === 0,
  };
}

function deletesWithin(plan: LoadPlan, namespace: string, from: number, to: number): boolean {
  return plan.resources.some(
    (r) => r.namespace === namespace && r.deleteAt !== undefined && r.deleteAt > from && r.deleteAt < to,
  );
}

function heldCreate(
  random: Random,
  plan: LoadPlan,
  setting: MoveSetting,
  hold: HeldCreateEvent["hold"],
  i: number,
): HeldCreateEvent | undefined {
  const t = setting.chaosSec;
  const namespace = hold === "spendLimit" ? setting.limit?.namespace : random.pick(plan.namespaces).name;
  const ns = plan.namespaces.find((n) => n.name === namespace);
  if (ns === undefined) return undefined;
  // A SpendLimit hold comes between the limit's own moves (spendLimitMoves' slots).
  const at = hold === "spendLimit" ? random.between(0.55 * t, 0.6 * t) : random.between(0.2 * t, 0.6 * t);
  const kind: Kind = hold === "spendLimit" ? "App" : "Project";
  const project =
    kind === "App"
      ? plan.resources.find(
          (r) =>
            r.kind === "Project" &&
            r.namespace === ns.name &&
            r.deleteAt === undefined &&
            r.createAt + 20 < at &&
            r.role === undefined,
        )
      : undefined;
  if (kind === "App" && project === undefined) return undefined;
  const name = `held-${i}`;
  const spec: Record<string, unknown> = {
    displayName: serviceName(ns.name, name),
    deletionPolicy: "Delete",
    ...credentialFields(ns),
    ...(hold === "noCreate" ? { managementPolicies: ["Observe", "Update", "Delete"] } : {}),
    ...(kind === "App"
      ? { projectRef: { name: project?.name }, image: "nginx:1.27", instances: { min: 1, max: 1 } }
      : {}),
  };
  const resource: PlannedResource = {
    kind,
    namespace: ns.name,
    name,
    key: resourceKey(ns.name, kind, name),
    policy: "Delete",
    spec,
    createAt: at + 1,
    deleteAt: undefined,
    updates: [],
    order: undefined,
  };
  return { at, type: "heldCreate", hold, resource, project, seconds: random.between(12, 20) };
}

/**
 * Lowered then set back, raised then set back, deleted then re-created: each once, in a random
 * order of three slots that leave room for the SpendLimit hold of a held create.
 */
function spendLimitMoves(random: Random, t: number): SpendLimitEvent[] {
  const slots = random.shuffle([0.1, 0.35, 0.75]);
  const events: SpendLimitEvent[] = [];
  const pair = (
    slot: number,
    first: SpendLimitEvent["action"],
    factor: number,
    then: SpendLimitEvent["action"],
  ) => {
    const at = random.between(slot * t, (slot + 0.08) * t);
    events.push({ at, type: "spendLimit", action: first, factor });
    events.push({ at: at + random.between(6, 15), type: "spendLimit", action: then, factor: 1 });
  };
  pair(slots[0] ?? 0.1, "lower", random.between(0.2, 0.7), "raise");
  pair(slots[1] ?? 0.35, "raise", random.between(1.5, 3), "lower");
  pair(slots[2] ?? 0.7, "delete", 1, "recreate");
  return events;
}

/** `count` managing resources switched to ["Observe"] and back to ["*"] some seconds later, as load updates. */
function planPolicySwitches(random: Random, plan: LoadPlan, setting: MoveSetting, count: number): void {
  const last = 0.9 * setting.chaosSec;
  const candidates = plan.resources.filter((r) => r.role === undefined && r.order === undefined);
  for (let n = 0; n < count && candidates.length > 0; n++) {
    const target = random.pick(candidates);
    const end = Math.min(target.deleteAt ?? last, last);
    const at = random.between(target.createAt + 10, Math.max(target.createAt + 10, end - 20));
    const back = at + random.between(5, 15);
    if (back >= end - 1) continue;
    target.updates.push(
      { at, what: policySwitch.out, type: "patch", patch: { managementPolicies: ["Observe"] } },
      { at: back, what: policySwitch.back, type: "patch", patch: { managementPolicies: ["*"] } },
    );
    target.updates.sort((a, b) => a.at - b.at);
  }
}
