import { ConditionType, getCondition } from "../../api/conditions.ts";
import type { Intent } from "../../api/intents.ts";
import { annotations, finalizer } from "../../api/meta.ts";
import type { ServerOrder } from "../../api/server-order.ts";
import {
  type HostingClient,
  isHostingError,
  type Order,
  type ProvisionInput,
  paginate,
  type Server,
  type WithMetadata,
} from "../../hosting/index.ts";
import { resolveGridIds } from "../grid/grid-ref.ts";
import { gridType } from "../grid/kind.ts";
import { connectForResource } from "../service/connect.ts";
import type { ControllerDeps } from "../service/deps.ts";
import { stalledBy } from "../service/failure.ts";
import type { Connection } from "../service/hosting-access.ts";
import { Reason } from "../service/reasons.ts";
import { scopeProblem } from "../service/scopes.ts";
import { pendingRequest, reconcileRequest, requestValue } from "../skeleton/annotations.ts";
import { intentsHeld } from "../skeleton/held-intents.ts";
import { inputOf, intentsOf } from "../skeleton/intents.ts";
import type { Observation } from "../skeleton/kind.ts";
import { mayCall } from "../skeleton/policies.ts";
import { deferFirstRead, isSettled, jittered } from "../skeleton/schedule.ts";
import type { CatalogCache } from "./catalog.ts";
import { desiredInput, orderSettled } from "./desired.ts";
import { defaultFoldAfterMs, foldableOrders, foldHorizon } from "./fold.ts";
import { growServers } from "./growth.ts";
import { ordersFromEarlierAttempt, replacementsFromEarlierAttempt } from "./inspection.ts";
import { serverOrderType } from "./kind.ts";
import type { OrderKnowledge, OrderMemory } from "./memory.ts";
import { type OrderPolls, orderMarker, orderScopes } from "./plan-common.ts";
import { replaceServer } from "./replacement.ts";

export interface ObserveOptions {
  catalogs: CatalogCache;
  polls: OrderPolls;
}

/**
 * Reads credentials and identity, the referenced Grids from the informer, and from the service only
 * what is due: orders an uncertain call may have placed, the order and its servers, the catalog.
 * Starts from the memory, which it never changes: what it reads goes into this observe's own draft.
 */
export async function observeServerOrder(
  deps: ControllerDeps,
  serverOrder: ServerOrder,
  memory: OrderMemory,
  options: ObserveOptions,
): Promise<Observation<OrderKnowledge>> {
  const { spec, metadata } = serverOrder;
  const namespace = metadata.namespace ?? "default";
  const knowledge: OrderKnowledge = {
    ...memory,
    problem: undefined,
    me: undefined,
    grids: resolveGridIds(
      (ns, name) => deps.informer(gridType).get(`${ns}/${name}`),
      namespace,
      spec.gridRefs ?? [],
      spec.gridIds ?? [],
    ),
    catalog: undefined,
    candidates: undefined,
    refused: undefined,
    requestId: serverOrder.status?.lastRequestId,
    growthCandidates: undefined,
  };
  const result: Observation<OrderKnowledge> = { knowledge, connection: undefined, failure: undefined };
  const deleting = metadata.deletionTimestamp !== undefined;
  const releasing =
    deleting && (spec.deletionPolicy === "Orphan" || !(metadata.finalizers ?? []).includes(finalizer));
  if (releasing || (spec.suspend && !deleting)) return result;
  await connectForResource(deps, serverOrder, result, "reading the order at the service", (connection) =>
    readService(deps, serverOrder, knowledge, connection, options),
  );
  return result;
}

/** Reads into `knowledge`, this observe's own draft. */
async function readService(
  deps: ControllerDeps,
  serverOrder: ServerOrder,
  knowledge: OrderKnowledge,
  { client, me }: Connection,
  options: ObserveOptions,
): Promise<void> {
  const deleting = serverOrder.metadata.deletionTimestamp !== undefined;
  const marker = orderMarker(serverOrder.status);
  // The order it follows: recorded in status, else the one spec.orderId adopts.
  const orderId = serverOrder.status?.orderId ?? serverOrder.spec.orderId;
  // Whether it may place a first order: never when adopting; not when the policies hold creates.
  const creates = serverOrder.spec.orderId === undefined && mayCall(serverOrder.spec, "create");
  const unreadable = scopeProblem(me, ["pools:read"], "read orders and servers");
  if (unreadable !== undefined) {
    // With no order to read, the plan names every scope ordering needs (pools:write includes pools:read).
    if (marker !== undefined || orderId !== undefined || !creates) knowledge.problem = unreadable;
    return;
  }
  const note = (requestId: string | undefined) => {
    if (requestId !== undefined) knowledge.requestId = requestId;
  };
  if (marker !== undefined) {
    const input = attemptedInput(serverOrder, knowledge);
    if (input === undefined) {
      // The order call's arguments are no longer known: matching without them could adopt someone
      // else's order, so nothing is adopted and nothing is ordered.
      knowledge.problem = stalledBy(
        Reason.OrderUncertain,
        "an order call's outcome is unknown and the spec changed since (or its grids can't be resolved), so berth " +
          "can't tell its order from others: restore the spec as it was, or check the orders at the service, " +
          "deprovision what you don't want, then set deletionPolicy: Orphan and delete this ServerOrder",
      );
      return;
    }
    knowledge.candidates = await findCandidates(deps, client, serverOrder, input, marker);
  }
  const pending = intentsOf(serverOrder.status).filter((i) => i.state === "Pending");
  if (pending.length > 0) knowledge.lookups = await lookUpIntents(deps, client, serverOrder, pending);
  const growing = serverOrder.status?.growing;
  if (growing !== undefined) {
    if (!knowledge.grids.ok) {
      knowledge.problem = knowledge.grids.problem;
      return;
    }
    const input = { ...desiredInput(serverOrder.spec, knowledge.grids.gridIds), count: growing.count };
    knowledge.growthCandidates = await findCandidates(
      deps,
      client,
      serverOrder,
      input,
      new Date(growing.since),
    );
  }
  const generation = serverOrder.metadata.generation ?? 0;
  const requested = pendingRequests(serverOrder);
  // A replace call in flight (status.replacing) is finished at once, not at the spread first read.
  const settled =
    isSettled(serverOrder, generation) &&
    requested === undefined &&
    marker === undefined &&
    pending.length === 0 &&
    serverOrder.status?.replacing === undefined;
  const timing = { now: deps.now(), intervalMs: deps.settings.driftIntervalMs, random: deps.random };
  const spread =
    !deleting &&
    orderId !== undefined &&
    knowledge.order === undefined &&
    deferFirstRead(knowledge, { generation, settled }, timing, "orderDueAt");
  // A Pending intent on servers is settled by listing them: read at once.
  const due = deleting || pending.length > 0 || orderDue(deps, serverOrder, knowledge, orderId ?? "");
  if (orderId !== undefined && !spread && due) {
    await readOrder(deps, client, serverOrder, knowledge, orderId, options.polls, note);
  }
  const mayOrder =
    serverOrder.spec.orderId === undefined &&
    (orderId === undefined || marker !== undefined || knowledge.order?.state === "failed");
  // The catalog checks the spec before an order; with creates held it is still read (pools:read) so
  // the spec is checked all the same, before the dry run is held back with the order.
  const orderable = !creates || scopeProblem(me, orderScopes, "order") === undefined;
  if (!deleting && mayOrder && knowledge.grids.ok && orderable) {
    knowledge.catalog = await options.catalogs.get(client);
  }
}

function orderDue(
  deps: ControllerDeps,
  serverOrder: ServerOrder,
  knowledge: OrderKnowledge,
  orderId: string,
): boolean {
  const request = pendingRequests(serverOrder);
  return (
    (knowledge.order !== undefined && knowledge.order.id !== orderId) ||
    // An order known (answered, adopted) but whose servers were never listed.
    (knowledge.order !== undefined && orderSettled(knowledge.order) && knowledge.servers === undefined) ||
    knowledge.readGeneration !== (serverOrder.metadata.generation ?? 0) ||
    (request !== undefined && request !== knowledge.servedRequest) ||
    knowledge.orderDueAt === undefined ||
    knowledge.orderDueAt <= deps.now()
  );
}

/**
 * The annotation requests not handled yet (a reconcile, a server to replace): each is answered
 * from a fresh read of the order, never from the spread first read after a restart.
 */
function pendingRequests(serverOrder: ServerOrder): string | undefined {
  const status = serverOrder.status;
  const reconcile = pendingRequest(reconcileRequest(serverOrder), status?.lastHandledReconcileAt);
  const replace = pendingRequest(
    requestValue(serverOrder, annotations.replaceServer),
    status?.lastHandledReplaceServer,
  );
  return reconcile === undefined && replace === undefined ? undefined : `${reconcile ?? ""} ${replace ?? ""}`;
}

/** Reads the order and (once it has any) its servers; schedules the next read. */
async function readOrder(
  deps: ControllerDeps,
  client: HostingClient,
  serverOrder: ServerOrder,
  knowledge: OrderKnowledge,
  orderId: string,
  polls: OrderPolls,
  note: (requestId: string | undefined) => void,
): Promise<void> {
  const now = deps.now();
  const settled = knowledge.order?.id === orderId && orderSettled(knowledge.order);
  const priority =
    settled && knowledge.readGeneration === (serverOrder.metadata.generation ?? 0) ? "background" : "user";
  let order: WithMetadata<Order> | undefined;
  try {
    order = await client.getOrder(orderId, { priority });
    note(order.$metadata.requestId);
  } catch (error) {
    if (!isHostingError(error) || error.code !== "not_found") throw error;
    note(error.requestId);
  }
  if (knowledge.order?.id !== orderId) knowledge.servers = undefined;
  knowledge.order = order;
  knowledge.gone = order === undefined;
  // Servers appear once the order provisions; those of an order the service forgot may still be listed.
  if (order?.state !== "pending") {
    const servers: Server[] = [];
    for await (const server of paginate((cursor) => client.listServers({ orderId, cursor }, { priority }))) {
      servers.push(server);
    }
    knowledge.servers = servers;
  }
  const status = serverOrder.status;
  const growthIds = (status?.growthOrders ?? []).map((o) => o.id);
  const growth = await readRecordedOrders(client, growthIds, knowledge.growthOrders, priority, note);
  knowledge.growthOrders = growth.orders;
  const replacementIds = (status?.replacements ?? []).flatMap((r) =>
    r.orderId === undefined ? [] : [r.orderId],
  );
  const replacing = await readRecordedOrders(
    client,
    replacementIds,
    knowledge.replacementOrders,
    priority,
    note,
  );
  knowledge.replacementOrders = replacing.orders;
  const emptied = [...growth.emptied, ...replacing.emptied];
  if (emptied.length > 0) {
    const open = deps.informer(serverOrderType).list().flatMap(intentsHeld);
    const before = foldHorizon(now, deps.settings.foldOrdersAfterMs ?? defaultFoldAfterMs, open);
    knowledge.foldable = foldableOrders(emptied, status?.replacements ?? [], before);
  }
  if (knowledge.servers !== undefined) {
    knowledge.servers = [...knowledge.servers, ...growth.servers, ...replacing.servers];
  }
  checkPowerCall(deps, knowledge, polls);
  const transitions = (knowledge.servers ?? []).some((s) => inTransition.has(s.state));
  knowledge.orderDueAt =
    order === undefined
      ? undefined
      : Math.min(
          now + nextReadMs(deps, order, polls),
          ...[...growth.orders, ...replacing.orders]
            .filter((o) => !orderSettled(o))
            .map((o) => now + nextReadMs(deps, o, polls)),
          transitions ? now + polls.powerMs : Number.POSITIVE_INFINITY,
        );
  knowledge.readGeneration = serverOrder.metadata.generation ?? 0;
  knowledge.servedRequest = pendingRequests(serverOrder);
}

/** Server states berth looks at again soon: they end by themselves. */
const inTransition = new Set(["hibernating", "waking", "rebooting", "deprovisioning", "retiring"]);

/**
 * Orders recorded in status after the first (growth and replacement orders) and their servers. A
 * settled order is not read again (it no longer changes), only its servers are listed; one the
 * service forgot still has its servers listed.
 */
async function readRecordedOrders(
  client: HostingClient,
  ids: readonly string[],
  knownOrders: readonly Order[],
  priority: "user" | "background",
  note: (requestId: string | undefined) => void,
): Promise<{ servers: Server[]; orders: Order[]; emptied: Order[] }> {
  const known = new Map(knownOrders.map((o) => [o.id, o]));
  const orders: Order[] = [];
  const servers: Server[] = [];
  const emptied: Order[] = [];
  for (const id of ids) {
    let order = known.get(id);
    if (order === undefined || !orderSettled(order)) {
      try {
        const read = await client.getOrder(id, { priority });
        note(read.$metadata.requestId);
        order = read;
      } catch (error) {
        if (!isHostingError(error) || error.code !== "not_found") throw error;
        order = undefined;
      }
    }
    if (order !== undefined) orders.push(order);
    if (order?.state === "pending") continue;
    const listed = servers.length;
    for await (const server of paginate((cursor) =>
      client.listServers({ orderId: id, cursor }, { priority }),
    )) {
      servers.push(server);
    }
    if (order !== undefined && orderSettled(order) && servers.length === listed) emptied.push(order);
  }
  return { servers, orders, emptied };
}

/**
 * Reading the servers back after a hibernate or wake: those still in the state the call was to
 * leave were not acted on (a wake without capacity), and are called again after a backoff.
 */
function checkPowerCall(deps: ControllerDeps, knowledge: OrderKnowledge, polls: OrderPolls): void {
  const attempt = knowledge.power;
  if (attempt === undefined || attempt.retryAt !== undefined || knowledge.servers === undefined) return;
  const left = attempt.action === "wake" ? "hibernated" : "running";
  const asked = new Set(attempt.addresses);
  const stuck = knowledge.servers
    .filter((s) => asked.has(s.address) && s.state === left)
    .map((s) => s.address);
  if (stuck.length === 0) {
    knowledge.power = undefined;
    return;
  }
  const failures = attempt.failures + 1;
  const backoffMs = Math.min(polls.powerMs * 4 * 2 ** (failures - 1), maxPowerBackoffMs);
  knowledge.power = {
    ...attempt,
    addresses: stuck,
    failures,
    retryAt: deps.now() + jittered(backoffMs, deps.random),
  };
}

/** The longest wait between two wakes the service did not act on. */
const maxPowerBackoffMs = 5 * 60_000;

/** An order in flight is read when the service says (`pollAfterSec`); a settled one at the drift check. */
export function nextReadMs(deps: ControllerDeps, order: Order, polls: OrderPolls): number {
  if (orderSettled(order)) {
    return jittered(deps.settings.driftIntervalMs, deps.random);
  }
  return typeof order.pollAfterSec === "number" ? Math.max(1, order.pollAfterSec) * 1000 : polls.orderMs;
}

/** What the order call with an unknown outcome asked for: known only while the spec is as it was then. */
function attemptedInput(serverOrder: ServerOrder, knowledge: OrderKnowledge): ProvisionInput | undefined {
  const marked = getCondition(serverOrder.status?.conditions, ConditionType.Ordered);
  const specUnchanged = marked?.observedGeneration === (serverOrder.metadata.generation ?? 0);
  return specUnchanged && knowledge.grids.ok
    ? desiredInput(serverOrder.spec, knowledge.grids.gridIds)
    : undefined;
}

/** The order IDs a ServerOrder's status holds: its first order, then its growth and replacement orders. Pure. */
export function claimedOrderIds(status: unknown): string[] {
  const { orderId, growthOrders, replacements } = (status ?? {}) as {
    orderId?: unknown;
    growthOrders?: unknown;
    replacements?: unknown;
  };
  const growth = Array.isArray(growthOrders) ? growthOrders : [];
  const replacing = Array.isArray(replacements) ? replacements : [];
  return [
    orderId,
    ...growth.map((entry) => (entry as { id?: unknown } | null)?.id),
    ...replacing.map((entry) => (entry as { orderId?: unknown } | null)?.orderId),
  ].filter((id): id is string => typeof id === "string");
}

/**
 * What each Pending intent's call may have placed, looked up on the intent's own input: orders for
 * an order, growth or replace call (calls on servers are settled from the server listing).
 */
async function lookUpIntents(
  deps: ControllerDeps,
  client: HostingClient,
  serverOrder: ServerOrder,
  pending: Intent[],
): Promise<Record<string, Order[]>> {
  const lookups: Record<string, Order[]> = {};
  for (const intent of pending) {
    const since = new Date(intent.since);
    if (intent.operation === "orderServers" || intent.operation === growServers) {
      const request = inputOf<{ request: ProvisionInput }>(intent)?.request;
      if (request !== undefined)
        lookups[intent.operation] = await findCandidates(deps, client, serverOrder, request, since);
    } else if (intent.operation === replaceServer) {
      const placement = inputOf<{ placement: ProvisionInput }>(intent)?.placement;
      if (placement === undefined) continue;
      const orders = await listAllOrders(client);
      const claimed = claimedByAny(deps, serverOrder);
      lookups[intent.operation] = replacementsFromEarlierAttempt(orders, { since, claimed, placement });
    }
  }
  return lookups;
}

async function listAllOrders(client: HostingClient): Promise<Order[]> {
  const orders: Order[] = [];
  for await (const order of paginate((cursor) => client.listOrders({ cursor, limit: 200 })))
    orders.push(order);
  return orders;
}

/** Orders any ServerOrder (this one included) holds: never the result of a call in doubt. */
function claimedByAny(deps: ControllerDeps, serverOrder: ServerOrder): Set<string> {
  const claimed = new Set(
    deps
      .informer(serverOrderType)
      .list()
      .filter((other) => other.metadata.uid !== serverOrder.metadata.uid)
      .flatMap((other) => claimedOrderIds(other.status)),
  );
  for (const id of claimedOrderIds(serverOrder.status)) claimed.add(id);
  return claimed;
}

/** Orders an order call with an unknown outcome may have placed (see `ordersFromEarlierAttempt`). */
async function findCandidates(
  deps: ControllerDeps,
  client: HostingClient,
  serverOrder: ServerOrder,
  input: ProvisionInput,
  since: Date,
): Promise<Order[]> {
  // Its own recorded orders too: growth and replacement orders, and a failed first order being replaced.
  const claimed = claimedByAny(deps, serverOrder);
  return ordersFromEarlierAttempt(await listAllOrders(client), { since, claimed, input });
}
