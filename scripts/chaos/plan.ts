import { z } from "zod";
import { instanceTypes, regions, zones } from "../../src/simulator/catalog.ts";
import { OWN_COMPUTE_CSP } from "../../src/simulator/guesses.ts";
import type { Kind } from "./cluster.ts";
import type { Random } from "./random.ts";
import { editTimes, planDrawnEdits } from "./schema-edits.ts";

/** How a namespace's resources find their credentials, and which credential fault hits it. */
export type CredentialStyle =
  /** `berth-credentials` in the namespace; its key is rotated during the run. */
  | "own"
  /** `spec.credentialsRef: team-b`; the Secret is deleted and restored during the run. */
  | "ref"
  /** The operator's `--default-credentials`. */
  | "default";

export interface NamespacePlan {
  name: string;
  credentials: CredentialStyle;
}

export const refSecretName = "team-b";

/**
 * A change a person makes: a spec patch, the replace-server annotation on one of the order's
 * running servers, or (the world) one of its servers failing at the service.
 */
export type PlannedUpdate =
  | { at: number; what: string; type: "patch"; patch: Record<string, unknown> }
  | { at: number; what: string; type: "replaceServer" | "failServer" };

export interface OrderTerms {
  /**
   * csp/region/zone/instanceType: unique per ServerOrder, so each order at the service (the first,
   * growth and replacement orders alike) names its resource.
   */
  signature: string;
  costMicros: number;
  maxMicros: number;
  overBudget: boolean;
}

/** A resource the ownership faults apply next to `source` (a key), which manages the object it names. */
export interface Role {
  /** `copy`: the source's manifest with its claim, under another name; `adopter`: names the object by spec ID. */
  type: "copy" | "adopter";
  source: string;
}

export interface PlannedResource {
  kind: Kind;
  namespace: string;
  name: string;
  /** `namespace/Kind/name`. */
  key: string;
  policy: "Delete" | "Orphan";
  spec: Record<string, unknown>;
  /** Seconds into the chaos. */
  createAt: number;
  deleteAt: number | undefined;
  updates: PlannedUpdate[];
  order: OrderTerms | undefined;
  /** Set on the copies and adopters the ownership faults make; they never manage anything. */
  role?: Role;
}

export interface Sizes {
  projects: number;
  apps: number;
  grids: number;
  orders: number;
}

export interface LoadPlan {
  namespaces: NamespacePlan[];
  resources: PlannedResource[];
}

/** The service's name for a Project, App or Grid: `namespace.name`, `.vN` after a rename. */
export function serviceName(namespace: string, name: string, version = 1): string {
  return version === 1 ? `${namespace}.${name}` : `${namespace}.${name}.v${version}`;
}

export function resourceKey(namespace: string, kind: Kind, name: string): string {
  return `${namespace}/${kind}/${name}`;
}

/** Every resource, its spec and its life (create, updates, delete) over `seconds` of chaos. */
export function planLoad(
  random: Random,
  namespaces: NamespacePlan[],
  sizes: Sizes,
  seconds: number,
  /** The schema-drawn edits' own stream: they never shift the rest of the plan. */
  edits: Random = random,
): LoadPlan {
  const signatures = random.shuffle(orderSignatures());
  const resources: PlannedResource[] = [];
  for (const ns of namespaces) {
    const life = new Lifetimes(random, seconds, edits);
    const projects = Array.from({ length: sizes.projects }, (_, i) => planProject(random, ns, i, life));
    const apps = Array.from({ length: sizes.apps }, (_, i) =>
      planApp(random, ns, i, random.pick(projects), life),
    );
    for (const app of apps) planMoves(random, app, projects, life);
    const grids = Array.from({ length: sizes.grids }, (_, i) => planGrid(random, ns, i, life));
    const orders = Array.from({ length: sizes.orders }, (_, i) => {
      const signature = signatures.pop();
      if (signature === undefined) throw new Error("more ServerOrders than catalog combinations");
      const grid = random.chance(0.5) ? random.pick(grids) : undefined;
      return planOrder(random, ns, i, { ...signature, count: random.int(1, 3) }, grid, grids, life);
    });
    resources.push(...projects, ...apps, ...grids, ...orders);
  }
  return { namespaces, resources };
}

/** When things happen, as shares of the chaos: creates early, deletes and last changes before 98 %. */
class Lifetimes {
  readonly #random: Random;
  readonly seconds: number;
  readonly edits: Random;

  constructor(random: Random, seconds: number, edits: Random) {
    this.#random = random;
    this.seconds = seconds;
    this.edits = edits;
  }

  get lastChange(): number {
    return 0.98 * this.seconds;
  }

  createAt(after = 1): number {
    return this.#random.between(after, Math.max(after + 1, 0.5 * this.seconds));
  }

  /**
   * A delete some time after the create (or undefined: the resource lives to the end); a third of
   * them within seconds, while the create may still be in flight.
   */
  deleteAt(createAt: number, share: number): number | undefined {
    if (!this.#random.chance(share)) return undefined;
    if (this.#random.chance(0.33)) return Math.min(createAt + this.#random.between(0.5, 8), this.lastChange);
    const earliest = Math.min(createAt + 0.1 * this.seconds, this.lastChange);
    return this.#random.between(earliest, this.lastChange);
  }

  /** A moment inside (from, to), if there is room. */
  within(from: number, to: number): number {
    return this.#random.between(from, Math.max(from, to));
  }
}

function base(ns: NamespacePlan, kind: Kind, name: string, policy: "Delete" | "Orphan") {
  return {
    kind,
    namespace: ns.name,
    name,
    key: resourceKey(ns.name, kind, name),
    policy,
    updates: [] as PlannedUpdate[],
    order: undefined,
  };
}

export function credentialFields(ns: NamespacePlan): Record<string, unknown> {
  return ns.credentials === "ref" ? { credentialsRef: { name: refSecretName } } : {};
}

function planProject(random: Random, ns: NamespacePlan, i: number, life: Lifetimes): PlannedResource {
  const name = `p-${i}`;
  const policy = random.chance(0.2) ? "Orphan" : "Delete";
  const createAt = life.createAt();
  const deleteAt = life.deleteAt(createAt, 0.3);
  const resource: PlannedResource = {
    ...base(ns, "Project", name, policy),
    spec: { displayName: serviceName(ns.name, name), deletionPolicy: policy, ...credentialFields(ns) },
    createAt,
    deleteAt,
  };
  if (random.chance(0.35)) {
    resource.updates.push({
      at: life.within(createAt + 3, deleteAt ?? life.lastChange),
      what: "Project displayName",
      type: "patch",
      patch: { displayName: serviceName(ns.name, name, 2) },
    });
  }
  drawnEdits(resource, life);
  return resource;
}

function planApp(
  random: Random,
  ns: NamespacePlan,
  i: number,
  project: PlannedResource,
  life: Lifetimes,
): PlannedResource {
  const name = `app-${i}`;
  // An Orphan app in a project that is deleted would keep the project's deletion waiting forever.
  const policy = project.policy === "Orphan" && random.chance(0.4) ? "Orphan" : "Delete";
  const end = project.deleteAt ?? life.lastChange;
  const createAt = life.within(project.createAt + 1, Math.min(end - 5, 0.6 * life.seconds));
  // Apps go with their project: some just before it, some just after (the project waits for them).
  const deleteAt =
    project.deleteAt === undefined
      ? life.deleteAt(createAt, 0.25)
      : Math.max(createAt + 3, project.deleteAt + random.between(-8, 8));
  const spec: Record<string, unknown> = {
    projectRef: { name: project.name },
    displayName: serviceName(ns.name, name),
    image: "nginx:1.27",
    ports: [{ port: 80, protocol: "http80_load_balancer" }],
    instances: { min: 1, max: random.int(1, 3) },
    stopped: random.chance(0.1),
    deletionPolicy: policy,
    ...credentialFields(ns),
  };
  const resource: PlannedResource = { ...base(ns, "App", name, policy), spec, createAt, deleteAt };
  // The moments come from the load's stream as they did before the edits were drawn (a hand list
  // took one or two more draws each): the plans of existing seeds, CI's included, stay as they were.
  const count = random.int(0, 3);
  const times: number[] = [];
  let at = createAt + 2;
  for (let n = 0; n < count; n++) {
    at = life.within(at + 2, deleteAt ?? life.lastChange);
    times.push(at);
    if (random.int(0, 3) >= 2) random.next();
  }
  resource.updates.push(...planDrawnEdits(life.edits, resource, times, deleteAt ?? life.lastChange));
  return resource;
}

function planGrid(random: Random, ns: NamespacePlan, i: number, life: Lifetimes): PlannedResource {
  const name = `grid-${i}`;
  const policy = random.chance(0.2) ? "Orphan" : "Delete";
  const createAt = life.createAt();
  const grid: PlannedResource = {
    ...base(ns, "Grid", name, policy),
    spec: { displayName: serviceName(ns.name, name), deletionPolicy: policy, ...credentialFields(ns) },
    createAt,
    deleteAt: life.deleteAt(createAt, 0.3),
  };
  drawnEdits(grid, life);
  return grid;
}

/** Zero to two edits drawn from the kind's schema (schema-edits.ts), among the planned ones. */
function drawnEdits(resource: PlannedResource, life: Lifetimes): void {
  const window: [number, number] = [resource.createAt + 3, resource.deleteAt ?? life.lastChange];
  const times = editTimes(life.edits, life.edits.int(0, 2), window);
  resource.updates.push(...planDrawnEdits(life.edits, resource, times, window[1]));
  resource.updates.sort((a, b) => a.at - b.at);
}

/**
 * Day 2 for an App: a move to another project that outlives it, sometimes retargeted seconds later
 * (to a third project or back), sometimes deleted right after (while the move's outcome may be unknown).
 */
function planMoves(random: Random, app: PlannedResource, projects: PlannedResource[], life: Lifetimes): void {
  if (!random.chance(0.5)) return;
  const end = app.deleteAt ?? life.lastChange;
  const at = life.within(app.createAt + 4, end - 1);
  const home = z.object({ name: z.string() }).parse(app.spec.projectRef).name;
  const lasting = (p: PlannedResource) => p.deleteAt === undefined && p.createAt + 3 < at;
  const targets = projects.filter((p) => lasting(p) && p.name !== home);
  if (targets.length === 0 || at >= end - 0.5) return;
  const target = random.pick(targets);
  app.updates.push(move(at, target.name, "App move"));
  const others = projects.filter((p) => lasting(p) && p.name !== target.name);
  if (others.length > 0 && random.chance(0.35)) {
    app.updates.push(
      move(Math.min(at + random.between(0.5, 4), end - 0.5), random.pick(others).name, "App move retargeted"),
    );
  }
  if (random.chance(0.2)) app.deleteAt = Math.min(at + random.between(0.5, 5), end);
  app.updates.sort((a, b) => a.at - b.at);
}

function move(at: number, project: string, what: string): PlannedUpdate {
  return { at, what, type: "patch", patch: { projectRef: { name: project } } };
}

function planOrder(
  random: Random,
  ns: NamespacePlan,
  i: number,
  signature: Signature,
  grid: PlannedResource | undefined,
  grids: PlannedResource[],
  life: Lifetimes,
): PlannedResource {
  const name = `so-${i}`;
  // Servers in a grid keep it from being deleted: only orders without grids may orphan theirs.
  const policy = grid === undefined && random.chance(0.25) ? "Orphan" : "Delete";
  const overBudget = random.chance(0.2);
  const end = grid?.deleteAt ?? life.lastChange;
  const createAt = life.within((grid?.createAt ?? 0) + 1, Math.min(end - 5, 0.6 * life.seconds));
  const ownDelete = life.deleteAt(createAt, 0.3);
  // An order goes with its grid, at the latest just before it.
  let deleteAt =
    grid?.deleteAt === undefined
      ? ownDelete
      : Math.max(createAt + 3, Math.min(ownDelete ?? grid.deleteAt, grid.deleteAt - random.between(0, 5)));
  const approvedAtOnce = overBudget || random.chance(0.5);
  const updates: PlannedUpdate[] = [];
  let approvedAt = approvedAtOnce ? createAt : undefined;
  if (!approvedAtOnce && (deleteAt === undefined || random.chance(0.6))) {
    approvedAt = life.within(createAt + 2, (deleteAt ?? life.lastChange) - 0.5);
    updates.push({ at: approvedAt, what: "ServerOrder approved", type: "patch", patch: { approved: true } });
  }
  const day2 =
    overBudget || approvedAt === undefined
      ? { updates: [], maxCount: signature.count }
      : planOrderDay2(random, signature.count, [approvedAt, deleteAt ?? life.lastChange], grid, grids, life);
  updates.push(...day2.updates);
  const last = day2.updates.at(-1);
  // Some deletions come right after a day-2 change, while its outcome may be unknown.
  if (last !== undefined && deleteAt !== undefined && random.chance(0.4)) {
    deleteAt = Math.min(deleteAt, last.at + random.between(0.5, 4));
  }
  const terms = orderTerms(random, signature, day2.maxCount, overBudget);
  const spec: Record<string, unknown> = {
    csp: signature.csp,
    region: signature.region,
    zone: signature.zone,
    instanceType: signature.instanceType,
    count: signature.count,
    approved: approvedAtOnce,
    maxHourlyCost: decimal(terms.maxMicros),
    autoReplace: random.chance(0.5),
    deletionPolicy: policy,
    ...(grid === undefined ? {} : { gridRefs: [{ name: grid.name }] }),
    ...credentialFields(ns),
  };
  const order: PlannedResource = {
    ...base(ns, "ServerOrder", name, policy),
    spec,
    createAt,
    deleteAt,
    updates,
    order: terms,
  };
  drawnEdits(order, life);
  return order;
}

/**
 * One to four day-2 changes of an approved order within `window`: count grown or shrunk, approval
 * withdrawn and given again, hibernate then wake, a server replaced by annotation or failing at
 * the service, its grid switched (to one that outlives it) and set back. `maxCount`: the most servers it asks for.
 */
function planOrderDay2(
  random: Random,
  count: number,
  [from, to]: [number, number],
  grid: PlannedResource | undefined,
  grids: PlannedResource[],
  life: Lifetimes,
): { updates: PlannedUpdate[]; maxCount: number } {
  const updates: PlannedUpdate[] = [];
  const patch = (at: number, what: string, fields: Record<string, unknown>) =>
    updates.push({ at, what, type: "patch", patch: fields });
  const otherGrids = grids.filter((g) => g !== grid && g.deleteAt === undefined);
  let current = count;
  let maxCount = count;
  let at = from + 2;
  for (let n = random.int(1, 4); n > 0; n--) {
    at = life.within(at + 2, to - 1);
    const undoAt = at + random.between(3, 15);
    if (at >= to - 0.5) break;
    switch (random.int(0, 5)) {
      case 0: {
        const grow = current === 1 || (current < 4 && random.chance(0.6));
        current += grow ? 1 : -1;
        maxCount = Math.max(maxCount, current);
        patch(at, grow ? "ServerOrder count grown" : "ServerOrder count shrunk", { count: current });
        break;
      }
      case 1:
        if (undoAt >= to - 0.5) break;
        patch(at, "ServerOrder approval withdrawn", { approved: false });
        patch(undoAt, "ServerOrder approved again", { approved: true });
        at = undoAt;
        break;
      case 2:
        if (undoAt >= to - 0.5) break;
        patch(at, "ServerOrder hibernated", { power: "Hibernated" });
        patch(undoAt, "ServerOrder woken", { power: "On" });
        at = undoAt;
        break;
      case 3:
        updates.push({ at, what: "ServerOrder replace-server annotation", type: "replaceServer" });
        break;
      case 4:
        updates.push({ at, what: "a server failed at the service", type: "failServer" });
        break;
      default: {
        // Grids are fixed once ordered: the order stalls (ImmutableAfterOrder) until the spec is set back.
        const other = grid === undefined ? undefined : otherGrids[random.int(0, otherGrids.length - 1)];
        if (other === undefined || grid === undefined || undoAt >= to - 0.5) break;
        patch(at, "ServerOrder grid switched", { gridRefs: [{ name: other.name }] });
        patch(undoAt, "ServerOrder grid set back", { gridRefs: [{ name: grid.name }] });
        at = undoAt;
      }
    }
  }
  return { updates, maxCount };
}

interface Placement {
  csp: string;
  region: string;
  zone: string;
  instanceType: string;
}

interface Signature extends Placement {
  count: number;
}

/** Every combination of zone and size of the service's own compute (the csp the spec shows): one per ServerOrder. */
function orderSignatures(): Placement[] {
  const out: Placement[] = [];
  for (const region of regions) {
    for (const zone of zones.filter((candidate) => candidate.regionId === region.id)) {
      for (const type of instanceTypes.filter((t) => t.csp === OWN_COMPUTE_CSP && t.gpu === 0)) {
        out.push({ csp: type.csp, region: region.id, zone: zone.id, instanceType: type.id });
      }
    }
  }
  return out;
}

export function signatureOf(order: Placement): string {
  return `${order.csp}/${order.region}/${order.zone}/${order.instanceType}`;
}

/** Within budget: a maxHourlyCost that covers the most servers the plan asks for; over it: below the first count. */
function orderTerms(random: Random, signature: Signature, maxCount: number, overBudget: boolean): OrderTerms {
  const price = instanceTypes.find((t) => t.id === signature.instanceType)?.hourlyPrice ?? 0;
  const costMicros = price * signature.count;
  // In cents: below the cost when over budget, at or above it otherwise.
  const maxCents = overBudget
    ? Math.max(1, Math.floor((costMicros * random.between(0.3, 0.9)) / 10_000))
    : Math.ceil((price * maxCount * random.between(1, 3)) / 10_000) + 1;
  return { signature: signatureOf(signature), costMicros, maxMicros: maxCents * 10_000, overBudget };
}

/** Micro-units as a decimal string with two fraction digits. */
export function decimal(micros: number): string {
  return (micros / 1_000_000).toFixed(2);
}
