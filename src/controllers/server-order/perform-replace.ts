import { applyConditionChange, type ConditionInput } from "../../api/conditions.ts";
import type { ServerOrderStatus } from "../../api/server-order.ts";
import { HostingApiError, type HostingClient, type Order } from "../../hosting/index.ts";
import { type KubeObject, patchStatus } from "../../runtime/index.ts";
import { quoteRequest } from "../shared/condition-changes.ts";
import type { ObjectFact } from "../shared/kind.ts";
import { orderSettled, reasonOfCode } from "./desired.ts";
import { serverOrderType } from "./kind.ts";
import { nextReadMs } from "./observe.ts";
import type { OrderFact, OrderStep } from "./perform.ts";
import { OrderReason, type ReplaceAction } from "./plan-common.ts";
import { leaving } from "./plan-count.ts";
import { replacedCondition } from "./plan-replace.ts";

type Replace = Extract<ReplaceAction, { type: "replace" }>;
type Replacing = NonNullable<ServerOrderStatus["replacing"]>;
type Facts = AsyncGenerator<OrderFact | ObjectFact>;

/** Replacing a server, or refusing a request to: each writes status before (and after) its call. */
export async function* performReplace(step: OrderStep, action: ReplaceAction): Facts {
  const { deps, object } = step.context;
  if (action.type === "refuseReplace") {
    deps.recorder.record(object, "Warning", OrderReason.ReplaceRefused, action.message, "replace");
    yield {
      type: "written",
      object: (await patchStatus(deps.kube, serverOrderType, object, action.status)).object,
    };
    return;
  }
  yield* replace(step, action);
}

async function* replace(step: OrderStep, action: Replace): Facts {
  const { deps, object } = step.context;
  const marker = action.marker.replacing;
  if (marker === undefined) throw new TypeError("a replace action needs status.replacing");
  // Status says a replace call may be in flight before it is sent, so a crash during it is noticed.
  const marked = (await patchStatus(deps.kube, serverOrderType, object, action.marker)).object;
  yield { type: "written", object: marked };
  let answer: Awaited<ReturnType<HostingClient["replaceServer"]>>;
  try {
    answer = await step.client().replaceServer(marker.address, {}, { idempotencyKey: marker.idempotencyKey });
  } catch (error) {
    if (!(error instanceof HostingApiError && error.kind === "terminal")) throw error;
    if (action.again && !stillLive(step, marker.address)) {
      // The earlier call retired the server, but the service no longer replays its answer.
      const note = `server ${marker.address} was replaced by a call whose answer was lost; its new server is not known to berth`;
      deps.recorder.record(object, "Warning", OrderReason.ServersMissing, note, "replace");
      yield* record(step, marked, marker, undefined, note);
      return;
    }
    // The service's own refusal replaced nothing: the marker goes, and the condition says why.
    const message = `the service refused to replace server ${marker.address}: ${error.message}`;
    const refused = await patchStatus(deps.kube, serverOrderType, marked, {
      ...withoutMarker(marked),
      conditions: withReplaced(step, marked, "False", reasonOfCode(error.code), message),
    });
    yield { type: "written", object: refused.object };
    throw error;
  }
  const order = answer.order;
  const how = marker.request === undefined ? "spec.autoReplace" : `request ${marker.request}`;
  const note = `replacing ${action.state === "failed" ? "failed " : ""}server ${marker.address} (${how}): ${
    order === undefined ? "the service named no order" : `order ${order.id}`
  }; the old machine and its disk are retired`;
  const { requestId } = answer.$metadata;
  deps.recorder.record(
    object,
    action.state === "failed" ? "Warning" : "Normal",
    "Replacing",
    quoteRequest(requestId, note),
    "replace",
  );
  yield { type: "answered", requestId };
  yield* record(step, marked, marker, order, note);
}

/** Records the replacement and clears the marker in one write: from here on it is never sent again. */
async function* record(
  step: OrderStep,
  object: KubeObject,
  marker: Replacing,
  order: Order | undefined,
  message: string,
): Facts {
  const { deps } = step.context;
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
  yield { type: "passing", addresses: [marker.address], state: "retiring" };
  if (order !== undefined) {
    yield { type: "replacement", order };
    if (!orderSettled(order)) yield { type: "due", at: deps.now() + nextReadMs(deps, order, step.polls) };
  }
  const conditions = withReplaced(step, object, "True", "Succeeded", message);
  const written = await patchStatus(deps.kube, serverOrderType, object, {
    ...status,
    replacements,
    conditions,
  });
  yield { type: "written", object: written.object };
}

function stillLive(step: OrderStep, address: string): boolean {
  const server = step.context.knowledge.servers?.find((s) => s.address === address);
  return server !== undefined && !leaving.has(server.state);
}

function withoutMarker(object: KubeObject): ServerOrderStatus {
  const { replacing: _, ...status } = (object.status ?? {}) as ServerOrderStatus;
  return status;
}

function withReplaced(
  step: OrderStep,
  object: KubeObject,
  status: "True" | "False",
  reason: string,
  message: string,
) {
  const { deps, resource } = step.context;
  const condition: ConditionInput = {
    type: replacedCondition,
    status,
    reason,
    message,
    observedGeneration: resource.metadata.generation ?? 0,
  };
  const previous = (object.status as ServerOrderStatus | undefined)?.conditions;
  return applyConditionChange(previous, { set: [condition], remove: [] }, new Date(deps.now()));
}
