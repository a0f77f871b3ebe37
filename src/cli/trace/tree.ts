import { z } from "zod";
import { annotations } from "../../api/meta.ts";

/** A berth resource as `berth trace` reads it: only the fields it shows, anything else passes. */
export const tracedObjectSchema = z.looseObject({
  kind: z.string(),
  metadata: z.looseObject({
    name: z.string(),
    namespace: z.string().optional(),
    uid: z.string().optional(),
    creationTimestamp: z.string().optional(),
    deletionTimestamp: z.string().optional(),
    labels: z.record(z.string(), z.string()).optional(),
    annotations: z.record(z.string(), z.string()).optional(),
  }),
  spec: z.record(z.string(), z.unknown()).optional(),
  status: z.record(z.string(), z.unknown()).optional(),
});
export type TracedObject = z.output<typeof tracedObjectSchema>;

export interface TraceEvent {
  /** UID of the object the event is about. */
  regarding: string;
  type: string;
  reason: string;
  note: string;
  at: string;
}

export interface TraceNode {
  kind: string;
  name: string;
  ready: string;
  reason: string;
  message: string;
  createdAt: string | undefined;
  externalId: string | undefined;
  /**
   * Its claim on the external object: `held`, `refused` (Stalled AlreadyManaged), `copied from
   * ns/name` (a copied manifest that has not claimed it), or `-`.
   */
  claim: string;
  /** The call berth recorded before making it and has not settled (`status.intents`), if any. */
  intent: { operation: string; key: string; attempt: number } | undefined;
  lastEvent: Omit<TraceEvent, "regarding"> | undefined;
  children: TraceNode[];
  /** The root only: every resource of its kind, in any namespace, that names its external object. */
  claimants?: { kind: string; namespace: string; name: string; claim: string }[];
  /** A SpendLimit root only: its limit, what runs costs, what is committed, and who waits or holds room. */
  spend?: TraceSpend;
}

/** A SpendLimit's accounts as its status states them (amounts per hour, `-` when not stated yet). */
export interface TraceSpend {
  limit: string;
  used: string;
  committed: string;
  currency: string;
  refused: { resource: string; adds: string; since: string }[];
  commitments: { resource: string; hourly: string; adds: string; since: string }[];
}

/** Everything in the namespace the tree may draw on. */
export interface TraceInputs {
  apps: TracedObject[];
  serverOrders: TracedObject[];
  events: TraceEvent[];
  /** Resources of the root's kind with its claim label, from every namespace the reader may list. */
  claimants: TracedObject[];
}

const conditionsSchema = z.array(
  z.looseObject({
    type: z.string(),
    status: z.string(),
    reason: z.string().optional(),
    message: z.string().optional(),
  }),
);
const intentsSchema = z.array(z.looseObject({ operation: z.string(), key: z.string(), attempt: z.number() }));
const serversSchema = z.array(
  z.looseObject({ address: z.string(), state: z.string().optional(), power: z.string().optional() }),
);
const refSchema = z.object({ name: z.string() });
const moneySchema = z.looseObject({ amount: z.string(), currency: z.string().optional() });
const refusedSchema = z.array(z.looseObject({ resource: z.string(), adds: z.string(), since: z.string() }));
const commitmentsSchema = z.array(
  z.looseObject({
    resource: z.string(),
    uid: z.string().optional(),
    hourly: z.string(),
    adds: z.string(),
    since: z.string(),
  }),
);

const externalIdField: Record<string, string> = {
  App: "appId",
  Project: "projectId",
  Grid: "gridId",
  ServerOrder: "orderId",
};

/**
 * The tree under `root`: a Project's Apps; a Grid's ServerOrders and their servers; an order's
 * servers; a SpendLimit's refused resources and those holding commitments.
 */
export function buildTrace(root: TracedObject, inputs: TraceInputs): TraceNode {
  const node = nodeOf(root, inputs.events);
  const others = inputs.claimants.filter((other) => other.metadata.uid !== root.metadata.uid);
  if (others.length > 0) {
    node.claimants = [root, ...others].map((claimant) => ({
      kind: claimant.kind,
      namespace: claimant.metadata.namespace ?? "",
      name: claimant.metadata.name,
      claim: claimOf(claimant),
    }));
  }
  if (root.kind === "Project") {
    node.children = inputs.apps
      .filter((app) => usesProject(app, root))
      .map((app) => nodeOf(app, inputs.events));
  } else if (root.kind === "Grid") {
    node.children = inputs.serverOrders
      .filter((order) => usesGrid(order, root))
      .map((order) => orderNode(order, inputs));
  } else if (root.kind === "ServerOrder") {
    node.children = serverNodes(root);
  } else if (root.kind === "SpendLimit") {
    node.spend = spendOf(root);
    node.children = spendChildren(node.spend, inputs);
  }
  return node;
}

function amountOf(value: unknown): { amount: string; currency: string | undefined } {
  const money = moneySchema.safeParse(value);
  return money.success
    ? { amount: money.data.amount, currency: money.data.currency }
    : { amount: "-", currency: undefined };
}

function spendOf(limit: TracedObject): TraceSpend {
  const status = limit.status ?? {};
  const stated = amountOf(status.limit);
  const used = amountOf(status.used);
  const committed = amountOf(status.committed);
  const spec = limit.spec?.maxHourlyCost;
  const refused = refusedSchema.safeParse(status.refused);
  const commitments = commitmentsSchema.safeParse(status.commitments);
  return {
    limit: stated.amount !== "-" ? stated.amount : typeof spec === "string" ? spec : "-",
    used: used.amount,
    committed: committed.amount,
    currency: stated.currency ?? used.currency ?? committed.currency ?? "",
    refused: refused.success
      ? refused.data.map(({ resource, adds, since }) => ({ resource, adds, since }))
      : [],
    commitments: commitments.success
      ? commitments.data.map(({ resource, hourly, adds, since }) => ({ resource, hourly, adds, since }))
      : [],
  };
}

/** The namespace's Apps and ServerOrders the SpendLimit names, refused ones first, each once. */
function spendChildren(spend: TraceSpend, inputs: TraceInputs): TraceNode[] {
  const named = [...spend.refused, ...spend.commitments].map((entry) => entry.resource);
  const objects = [...inputs.apps, ...inputs.serverOrders];
  const seen = new Set<string>();
  return named.flatMap((resource) => {
    if (seen.has(resource)) return [];
    seen.add(resource);
    const object = objects.find((o) => `${o.kind}/${o.metadata.name}` === resource);
    return object === undefined ? [] : [nodeOf(object, inputs.events)];
  });
}

function orderNode(order: TracedObject, inputs: TraceInputs): TraceNode {
  return { ...nodeOf(order, inputs.events), children: serverNodes(order) };
}

function nodeOf(object: TracedObject, events: TraceEvent[]): TraceNode {
  const status = object.status ?? {};
  const conditions = conditionsSchema.safeParse(status.conditions);
  const ready = conditions.success ? conditions.data.find((c) => c.type === "Ready") : undefined;
  const intents = intentsSchema.safeParse(status.intents);
  const idField = externalIdField[object.kind];
  const id = idField === undefined ? undefined : status[idField];
  const uid = object.metadata.uid;
  const last = events
    .filter((event) => uid !== undefined && event.regarding === uid)
    .sort((a, b) => a.at.localeCompare(b.at))
    .at(-1);
  return {
    kind: object.kind,
    name: object.metadata.name,
    ready: ready?.status ?? "Unknown",
    reason: ready?.reason ?? (object.status === undefined ? "NotReconciled" : ""),
    message: ready?.message ?? "",
    createdAt: object.metadata.creationTimestamp,
    externalId: typeof id === "string" ? id : undefined,
    claim: claimOf(object),
    intent: intents.success ? intents.data[0] : undefined,
    lastEvent:
      last === undefined ? undefined : { type: last.type, reason: last.reason, note: last.note, at: last.at },
    children: [],
  };
}

/** What a resource's metadata and conditions say of its claim on its external object. */
function claimOf(object: TracedObject): string {
  const conditions = conditionsSchema.safeParse(object.status?.conditions);
  const stalled = conditions.success ? conditions.data.find((c) => c.type === "Stalled") : undefined;
  if (stalled?.status === "True" && stalled.reason === "AlreadyManaged") return "refused";
  const claimant = object.metadata.annotations?.[annotations.claimant];
  if (claimant === undefined) return "-";
  const self = `${object.metadata.namespace ?? ""}/${object.metadata.name}`;
  return claimant === self ? "held" : `copied from ${claimant}`;
}

function serverNodes(order: TracedObject): TraceNode[] {
  const servers = serversSchema.safeParse(order.status?.servers);
  if (!servers.success) return [];
  return servers.data.map((server) => ({
    kind: "Server",
    name: server.address,
    ready: server.state === "running" ? "True" : "False",
    reason: `${server.state ?? "unknown"}, power ${server.power ?? "On"}`,
    message: "",
    createdAt: undefined,
    externalId: server.address,
    claim: "-",
    intent: undefined,
    lastEvent: undefined,
    children: [],
  }));
}

function usesProject(app: TracedObject, project: TracedObject): boolean {
  const ref = refSchema.safeParse(app.spec?.projectRef);
  if (ref.success) return ref.data.name === project.metadata.name;
  const projectId = project.status?.projectId;
  return typeof projectId === "string" && app.spec?.projectId === projectId;
}

function usesGrid(order: TracedObject, grid: TracedObject): boolean {
  const refs = z.array(refSchema).safeParse(order.spec?.gridRefs);
  if (refs.success && refs.data.some((ref) => ref.name === grid.metadata.name)) return true;
  const ids = z.array(z.string()).safeParse(order.spec?.gridIds);
  const gridId = grid.status?.gridId;
  return ids.success && typeof gridId === "string" && ids.data.includes(gridId);
}
