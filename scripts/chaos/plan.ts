import { instanceTypes, regions, zones } from "../../src/simulator/catalog.ts";
import type { Kind } from "./cluster.ts";
import type { Random } from "./random.ts";

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

export interface PlannedUpdate {
  at: number;
  what: string;
  patch: Record<string, unknown>;
}

export interface OrderTerms {
  /** csp/region/zone/instanceType/xCount: unique per ServerOrder, so each order at the service names its resource. */
  signature: string;
  costMicros: number;
  maxMicros: number;
  overBudget: boolean;
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
): LoadPlan {
  const signatures = random.shuffle(orderSignatures());
  const resources: PlannedResource[] = [];
  for (const ns of namespaces) {
    const life = new Lifetimes(random, seconds);
    const projects = Array.from({ length: sizes.projects }, (_, i) => planProject(random, ns, i, life));
    const apps = Array.from({ length: sizes.apps }, (_, i) =>
      planApp(random, ns, i, random.pick(projects), life),
    );
    const grids = Array.from({ length: sizes.grids }, (_, i) => planGrid(random, ns, i, life));
    const orders = Array.from({ length: sizes.orders }, (_, i) => {
      const signature = signatures.pop();
      if (signature === undefined) throw new Error("more ServerOrders than catalog combinations");
      return planOrder(random, ns, i, signature, random.chance(0.5) ? random.pick(grids) : undefined, life);
    });
    resources.push(...projects, ...apps, ...grids, ...orders);
  }
  return { namespaces, resources };
}

/** When things happen, as shares of the chaos: creates early, deletes and last changes before 98 %. */
class Lifetimes {
  readonly #random: Random;
  readonly seconds: number;

  constructor(random: Random, seconds: number) {
    this.#random = random;
    this.seconds = seconds;
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

function credentialFields(ns: NamespacePlan): Record<string, unknown> {
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
      patch: { displayName: serviceName(ns.name, name, 2) },
    });
  }
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
    env: [{ name: "MODE", value: "one" }],
    stopped: random.chance(0.1),
    deletionPolicy: policy,
    ...credentialFields(ns),
  };
  const resource: PlannedResource = { ...base(ns, "App", name, policy), spec, createAt, deleteAt };
  const count = random.int(0, 3);
  let at = createAt + 2;
  for (let n = 0; n < count; n++) {
    at = life.within(at + 2, deleteAt ?? life.lastChange);
    resource.updates.push(appUpdate(random, n, at));
  }
  return resource;
}

function appUpdate(random: Random, n: number, at: number): PlannedUpdate {
  switch (random.int(0, 3)) {
    case 0:
      return { at, what: "App image", patch: { image: `nginx:1.27.${n + 1}` } };
    case 1:
      return {
        at,
        what: "App ports",
        patch: {
          ports: [
            { port: 80, protocol: "http80_load_balancer" },
            { port: 8080 + n, protocol: "http" },
          ],
        },
      };
    case 2:
      return {
        at,
        what: "App env",
        patch: {
          env: [
            { name: "MODE", value: `v${n + 2}` },
            { name: "N", value: String(n) },
          ],
        },
      };
    default:
      return { at, what: "App stopped", patch: { stopped: random.chance(0.5) } };
  }
}

function planGrid(random: Random, ns: NamespacePlan, i: number, life: Lifetimes): PlannedResource {
  const name = `grid-${i}`;
  const policy = random.chance(0.2) ? "Orphan" : "Delete";
  const createAt = life.createAt();
  return {
    ...base(ns, "Grid", name, policy),
    spec: { displayName: serviceName(ns.name, name), deletionPolicy: policy, ...credentialFields(ns) },
    createAt,
    deleteAt: life.deleteAt(createAt, 0.3),
  };
}

function planOrder(
  random: Random,
  ns: NamespacePlan,
  i: number,
  signature: Signature,
  grid: PlannedResource | undefined,
  life: Lifetimes,
): PlannedResource {
  const name = `so-${i}`;
  // Servers in a grid keep it from being deleted: only orders without grids may orphan theirs.
  const policy = grid === undefined && random.chance(0.25) ? "Orphan" : "Delete";
  const overBudget = random.chance(0.2);
  const terms = orderTerms(random, signature, overBudget);
  const end = grid?.deleteAt ?? life.lastChange;
  const createAt = life.within((grid?.createAt ?? 0) + 1, Math.min(end - 5, 0.6 * life.seconds));
  const ownDelete = life.deleteAt(createAt, 0.3);
  // An order goes with its grid, at the latest just before it.
  const deleteAt =
    grid?.deleteAt === undefined
      ? ownDelete
      : Math.max(createAt + 3, Math.min(ownDelete ?? grid.deleteAt, grid.deleteAt - random.between(0, 5)));
  const approvedAtOnce = overBudget || random.chance(0.5);
  const spec: Record<string, unknown> = {
    csp: signature.csp,
    region: signature.region,
    zone: signature.zone,
    instanceType: signature.instanceType,
    count: signature.count,
    approved: approvedAtOnce,
    maxHourlyCost: decimal(terms.maxMicros),
    deletionPolicy: policy,
    ...(grid === undefined ? {} : { gridRefs: [{ name: grid.name }] }),
    ...credentialFields(ns),
  };
  const resource: PlannedResource = {
    ...base(ns, "ServerOrder", name, policy),
    spec,
    createAt,
    deleteAt,
    order: terms,
  };
  const approveAt = life.within(createAt + 2, (deleteAt ?? life.lastChange) - 0.5);
  if (!approvedAtOnce && (deleteAt === undefined || random.chance(0.6))) {
    resource.updates.push({ at: approveAt, what: "ServerOrder approved", patch: { approved: true } });
  }
  return resource;
}

interface Signature {
  csp: string;
  region: string;
  zone: string;
  instanceType: string;
  count: number;
}

/** Every catalog combination of provider, zone, size and count (1–3): one per ServerOrder. */
function orderSignatures(): Signature[] {
  const out: Signature[] = [];
  for (const region of regions) {
    for (const zone of zones.filter((z) => z.regionId === region.id)) {
      for (const type of instanceTypes.filter((t) => region.csps.includes(t.csp) && t.gpu === 0)) {
        for (const count of [1, 2, 3]) {
          out.push({ csp: type.csp, region: region.id, zone: zone.id, instanceType: type.id, count });
        }
      }
    }
  }
  return out;
}

export function signatureOf(order: {
  csp: string;
  region: string;
  zone: string;
  instanceType: string;
  count: number;
}): string {
  return `${order.csp}/${order.region}/${order.zone}/${order.instanceType}/x${order.count}`;
}

function orderTerms(random: Random, signature: Signature, overBudget: boolean): OrderTerms {
  const price = instanceTypes.find((t) => t.id === signature.instanceType)?.hourlyPrice ?? 0;
  const costMicros = price * signature.count;
  // In cents: below the cost when over budget, at or above it otherwise.
  const maxCents = overBudget
    ? Math.max(1, Math.floor((costMicros * random.between(0.3, 0.9)) / 10_000))
    : Math.ceil((costMicros * random.between(1, 3)) / 10_000) + 1;
  return { signature: signatureOf(signature), costMicros, maxMicros: maxCents * 10_000, overBudget };
}

/** Micro-units as a decimal string with two fraction digits. */
export function decimal(micros: number): string {
  return (micros / 1_000_000).toFixed(2);
}
