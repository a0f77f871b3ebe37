// Small histories for the invariant tests: planned resources, cluster readings and service readings.
import { instanceTypes } from "../../src/simulator/catalog.ts";
import type { Condition, Kind, Resource } from "./cluster.ts";
import type { InvariantName } from "./invariant-names.ts";
import { actionableReasons, Checker } from "./invariants.ts";
import { Ledger, type Tracked, Violations } from "./ledger.ts";
import { type PlannedResource, resourceKey, signatureOf } from "./plan.ts";
import type { ServiceOrder, ServiceSnapshot } from "./service.ts";
import type { RequestRecord } from "./simulator.ts";

const type = instanceTypes.find((t) => t.csp === "native" && t.gpu === 0);
if (type === undefined) throw new Error("no native instance type in the catalog");
/** Micros per hour of one server of the test orders. */
export const serverPrice = type.hourlyPrice;
const placement = { csp: "native", region: "eu-central", zone: "eu-central-1a", instanceType: type.id };

export const generation = 3;
export const ready: Condition = { type: "Ready", status: "True", reason: "Succeeded", observedGeneration: 3 };
export const stalled = (reason: string): Condition => ({
  type: "Stalled",
  status: "True",
  reason,
  observedGeneration: generation,
});
/** A clock that moves only when slept on, by as long as asked. */
export function steppingClock(start: number) {
  let now = start;
  return {
    now: () => now,
    sleep: async (ms: number) => {
      now += ms;
    },
  };
}

export function project(name: string, policy: "Delete" | "Orphan" = "Delete"): PlannedResource {
  return {
    kind: "Project",
    namespace: "ns",
    name,
    key: resourceKey("ns", "Project", name),
    policy,
    spec: { displayName: `ns.${name}`, deletionPolicy: policy },
    createAt: 0,
    deleteAt: undefined,
    updates: [],
    order: undefined,
  };
}

/** A copy (or adopter) of `source` under another name, in the same namespace. */
export function copyOf(
  source: PlannedResource,
  name: string,
  type: "copy" | "adopter" = "copy",
): PlannedResource {
  return {
    ...source,
    name,
    key: resourceKey(source.namespace, source.kind, name),
    policy: "Delete",
    order: undefined,
    role: { type, source: source.key },
  };
}

export function serverOrder(
  terms: { count?: number; maxServers?: number; overBudget?: boolean } = {},
): PlannedResource {
  const count = terms.count ?? 2;
  return {
    kind: "ServerOrder",
    namespace: "ns",
    name: "so",
    key: resourceKey("ns", "ServerOrder", "so"),
    policy: "Delete",
    spec: { ...placement, count, approved: true },
    createAt: 0,
    deleteAt: undefined,
    updates: [],
    order: {
      signature: signatureOf(placement),
      costMicros: serverPrice * count,
      maxMicros: serverPrice * (terms.maxServers ?? 100),
      overBudget: terms.overBudget ?? false,
    },
  };
}

/** A checker over resources created a minute ago (ServerOrders approved since). */
export function world(...resources: PlannedResource[]) {
  const ledger = new Ledger({ namespaces: [], resources });
  const violations = new Violations(Date.now());
  const checker = new Checker(ledger, violations, actionableReasons(), Date.now() - 60_000);
  for (const tracked of ledger.all()) {
    tracked.created = true;
    tracked.createdAt = Date.now() - 60_000;
    if (tracked.plan.kind === "ServerOrder") tracked.approvals.push({ at: 0, approved: true });
  }
  const tracked = (resource: PlannedResource): Tracked => {
    const found = ledger.get(resource.key);
    if (found === undefined) throw new Error(`${resource.key} is not in the ledger`);
    return found;
  };
  const found = (): InvariantName[] => [...new Set(violations.list().map((v) => v.invariant))];
  return { checker, ledger, violations, tracked, found };
}

/** The resource as the apiserver lists it, at generation 3. */
export function inCluster(
  resource: PlannedResource,
  status: Record<string, unknown>,
  conditions: Condition[] = [ready],
  deleting = false,
): Resource {
  return {
    metadata: {
      name: resource.name,
      namespace: resource.namespace,
      uid: `uid-${resource.name}`,
      generation,
      ...(deleting
        ? { deletionTimestamp: new Date().toISOString(), finalizers: ["berth.dev/finalizer"] }
        : {}),
    },
    status: { ...status, conditions },
  };
}

/** A cluster reading: every kind listed, holding these resources. */
export function cluster(...resources: { kind: Kind; resource: Resource }[]): Map<Kind, Resource[]> {
  const lists = new Map<Kind, Resource[]>([
    ["Project", []],
    ["App", []],
    ["Grid", []],
    ["ServerOrder", []],
  ]);
  for (const { kind, resource } of resources) lists.get(kind)?.push(resource);
  return lists;
}

export interface OrderAtService {
  id: string;
  state?: string;
  /** Defaults to the number of servers. */
  count?: number;
  servers: string[];
}

/** A service reading holding these projects and orders (of the test placement). */
export function service(
  content: { projects?: { id: string; name: string }[]; orders?: OrderAtService[] } = {},
): ServiceSnapshot {
  const orders = content.orders ?? [];
  return {
    projects: content.projects ?? [],
    apps: [],
    grids: [],
    orders: orders.map(
      (o): ServiceOrder => ({
        id: o.id,
        state: o.state ?? "completed",
        ...placement,
        count: o.count ?? o.servers.length,
      }),
    ),
    servers: orders.flatMap((o) =>
      o.servers.map((state, i) => ({ address: `0x${o.id}${i}`, orderId: o.id, state })),
    ),
  };
}

/** The service's orders with the creation times given (simulated ms), as it lists them. */
export function placedAt(snapshot: ServiceSnapshot, createdAt: Record<string, number>): ServiceSnapshot {
  return {
    ...snapshot,
    orders: snapshot.orders.map((o) => ({ ...o, createdAt: new Date(createdAt[o.id] ?? 0).toISOString() })),
  };
}

/** An ordering call in the simulator's log (a provisionServers by default). */
export function provision(
  requestId: string,
  at: number,
  status = 202,
  replayed = false,
  operation = "provisionServers",
): RequestRecord {
  return {
    at: new Date(at).toISOString(),
    path: operation === "provisionServers" ? "/v1/servers/provision" : "/v1/servers/0xab/replace",
    requestId,
    operation,
    status,
    keyId: null,
    replayed,
    dropped: false,
  };
}
