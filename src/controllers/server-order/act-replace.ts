import { applyConditionChange, type ConditionInput } from "../../api/conditions.ts";
import type { ServerOrderStatus } from "../../api/server-order.ts";
import { HostingApiError, type HostingClient, type Order } from "../../hosting/index.ts";
import { type KubeObject, patchStatus } from "../../runtime/index.ts";
import { quoteRequest } from "../shared/condition-changes.ts";
import type { OrderActInput } from "./act.ts";
import { orderSettled, reasonOfCode } from "./desired.ts";
import { serverOrderType } from "./kind.ts";
import { nextReadMs } from "./observe.ts";
import { OrderReason, type ReplaceAction } from "./plan-common.ts";
import { leaving } from "./plan-count.ts";
import { replacedCondition } from "./plan-replace.ts";

type Replace = Extract<ReplaceAction, { type: "replace" }>;
type Replacing = NonNullable<ServerOrderStatus["replacing"]>;

/** Replacing a server, or refusing a request to: each writes status before (and after) its call. */
export async function actOnReplace(
  input: OrderActInput,
  object: KubeObject,
  action: ReplaceAction,
): Promise<KubeObject> {
  if (action.type === "refuseReplace") {
    input.deps.recorder.record(
      input.object,
      "Warning",
      OrderReason.ReplaceRefused,
      action.message,
      "replace",
    );
    return (await patchStatus(input.deps.kube, serverOrderType, object, action.status)).object;
  }
  return replace(input, object, action);
}

async function replace(input: OrderActInput, object: KubeObject, action: Replace): Promise<KubeObject> {
  const { deps } = input;
  const marker = action.marker.replacing;
  if (marker === undefined) throw new TypeError("a replace action needs status.replacing");
  // Status says a replace call may be in flight before it is sent, so a crash during it is noticed.
  const marked = (await patchStatus(deps.kube, serverOrderType, object, action.marker)).object;
  let answer: Awaited<ReturnType<HostingClient["replaceServer"]>>;
  try {
    answer = await client(input).replaceServer(marker.address, {}, { idempotencyKey: marker.idempotencyKey });
  } catch (error) {
    if (!(error instanceof HostingApiError && error.kind === "terminal")) throw error;
    if (action.again && !stillLive(input, marker.address)) {
      // The earlier call retired the server, but the service no longer replays its answer.
      const note = `server ${marker.address} was replaced by a call whose answer was lost; its new server is not known to berth`;
      deps.recorder.record(input.object, "Warning", OrderReason.ServersMissing, note, "replace");
      return record(input, marked, marker, undefined, note);
    }
    // The service's own refusal replaced nothing: the marker goes, and the condition says why.
    const message = `the service refused to replace server ${marker.address}: ${error.message}`;
    await patchStatus(deps.kube, serverOrderType, marked, {
      ...withoutMarker(marked),
      conditions: withReplaced(input, marked, "False", reasonOfCode(error.code), message),
    });
    throw error;
  }
  const order = answer.order;
  const how = marker.request === undefined ? "spec.autoReplace" : `request ${marker.request}`;
  const note = `replacing ${action.state === "failed" ? "failed " : ""}server ${marker.address} (${how}): ${
    order === undefined ? "the service named no order" : `order ${order.id}`
  }; the old machine and its disk are retired`;
  deps.recorder.record(
    input.object,
    action.state === "failed" ? "Warning" : "Normal",
    "Replacing",
    quoteRequest(answer.$metadata.requestId, note),
    "replace",
  );
  if (answer.$metadata.requestId !== undefined) input.observed.requestId = answer.$metadata.requestId;
  return record(input, marked, marker, order, note);
}

/** Records the replacement and clears the marker in one write: from here on it is never sent again. */
async function record(
  input: OrderActInput,
  object: KubeObject,
  marker: Replacing,
  order: Order | undefined,
  message: string,
): Promise<KubeObject> {
  const { deps, memory, observed } = input;
  const status = withoutMarker(object);
  const entry = {
    address: marker.address,
    ...(order === undefined ? {} : { orderId: order.id }),
    ...(marker.request === undefined ? {} : { request: marker.request }),
    at: new Date(deps.now()).toISOString(),
  };
  const recorded = status.replacements ?? [];
  const known = order !== undefined && recorded.some((r) => r.orderId === order.id);
  const replacements = known ? recorded : [...recorded, entry];
  // The old server is on its way out until the next listing shows it so (or gone).
  memory.servers = memory.servers?.map((s) =>
    s.address === marker.address ? { ...s, state: "retiring" } : s,
  );
  observed.servers = memory.servers;
  if (order !== undefined) {
    memory.replacementOrders = [...memory.replacementOrders.filter((o) => o.id !== order.id), order];
    observed.replacementOrders = memory.replacementOrders;
    if (!orderSettled(order)) {
      const due = deps.now() + nextReadMs(deps, order, input.polls);
      memory.orderDueAt = Math.min(memory.orderDueAt ?? due, due);
    }
  }
  const written = { ...status, replacements };
  const conditions = withReplaced(input, object, "True", "Succeeded", message);
  return (await patchStatus(deps.kube, serverOrderType, object, { ...written, conditions })).object;
}

function stillLive(input: OrderActInput, address: string): boolean {
  const server = input.observed.servers?.find((s) => s.address === address);
  return server !== undefined && !leaving.has(server.state);
}

function withoutMarker(object: KubeObject): ServerOrderStatus {
  const { replacing: _, ...status } = (object.status ?? {}) as ServerOrderStatus;
  return status;
}

function withReplaced(
  input: OrderActInput,
  object: KubeObject,
  status: "True" | "False",
  reason: string,
  message: string,
) {
  const condition: ConditionInput = {
    type: replacedCondition,
    status,
    reason,
    message,
    observedGeneration: input.serverOrder.metadata.generation ?? 0,
  };
  const previous = (object.status as ServerOrderStatus | undefined)?.conditions;
  return applyConditionChange(previous, { set: [condition], remove: [] }, new Date(input.deps.now()));
}

function client(input: OrderActInput): HostingClient {
  const connection = input.connection;
  if (connection === undefined) throw new TypeError("calling the service needs a connection");
  return connection.client;
}
