import { applyConditionChange, type ConditionInput } from "../../api/conditions.ts";
import type { ServerOrderStatus } from "../../api/server-order.ts";
import { HostingApiError, type HostingClient, type Order } from "../../hosting/index.ts";
import { quoteRequest } from "../skeleton/condition-changes.ts";
import type { ObjectFact } from "../skeleton/kind.ts";
import type { OrderFact, ReplaceAction } from "./actions.ts";
import { orderSettled } from "./desired.ts";
import { leaving } from "./growth.ts";
import { nextReadMs } from "./observe.ts";
import type { OrderStep } from "./perform-step.ts";
import { OrderReason } from "./plan-common.ts";
import { replacedCondition } from "./replacement.ts";

type Replace = Extract<ReplaceAction, { type: "replace" }>;
type Facts = AsyncGenerator<OrderFact | ObjectFact>;

/** Replacing a server, or refusing a request to (an event; the plan's status says why). */
export async function* performReplace(step: OrderStep, action: ReplaceAction): Facts {
  const { deps, object } = step.context;
  if (action.type === "refuseReplace") {
    deps.recorder.record(object, "Warning", OrderReason.ReplaceRefused, action.message, "replace");
    return;
  }
  yield* replace(step, action);
}

async function* replace(step: OrderStep, action: Replace): Facts {
  const { deps, object } = step.context;
  let answer: Awaited<ReturnType<HostingClient["replaceServer"]>>;
  try {
    answer = await step.client().replaceServer(action.address, {}, { idempotencyKey: action.intent.key });
  } catch (error) {
    if (!(error instanceof HostingApiError && error.kind === "terminal")) throw error;
    if (action.again && !stillLive(step, action.address)) {
      // The earlier call retired the server, but the service no longer replays its answer.
      const note = `server ${action.address} was replaced by a call whose answer was lost; its new server is not known to berth`;
      deps.recorder.record(object, "Warning", OrderReason.ServersMissing, note, "replace");
      yield* recordReplacement(step, action.address, action.request, undefined, note);
      return;
    }
    throw error;
  }
  const order = answer.order;
  const how = action.request === undefined ? "spec.autoReplace" : `request ${action.request}`;
  const note = `replacing ${action.state === "failed" ? "failed " : ""}server ${action.address} (${how}): ${
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
  yield* recordReplacement(step, action.address, action.request, order, note);
}

/** Records the replacement (the skeleton writes it with the intent's end): it is never sent again. */
export async function* recordReplacement(
  step: OrderStep,
  address: string,
  request: string | undefined,
  order: Order | undefined,
  message: string,
): Facts {
  const { deps, resource } = step.context;
  const { replacing: _, ...status } = resource.status ?? {};
  const entry = {
    address,
    ...(order === undefined ? {} : { orderId: order.id }),
    ...(request === undefined ? {} : { request }),
    at: new Date(deps.now()).toISOString(),
  };
  const recorded = status.replacements ?? [];
  const known = order !== undefined && recorded.some((r) => r.orderId === order.id);
  const replacements = known ? recorded : [...recorded, entry];
  // The old server is on its way out until the next listing shows it so (or gone).
  yield { type: "passing", addresses: [address], state: "retiring" };
  if (order !== undefined) {
    yield { type: "replacement", order };
    if (!orderSettled(order)) yield { type: "due", at: deps.now() + nextReadMs(deps, order, step.polls) };
  }
  const conditions = withReplaced(step, status, "True", "Succeeded", message);
  const echo = request === undefined ? {} : { lastHandledReplaceServer: request };
  yield { type: "recorded", status: { replacements, conditions, replacing: undefined, ...echo } };
}

function stillLive(step: OrderStep, address: string): boolean {
  const server = step.context.knowledge.servers?.find((s) => s.address === address);
  return server !== undefined && !leaving.has(server.state);
}

function withReplaced(
  step: OrderStep,
  status: ServerOrderStatus,
  value: "True" | "False",
  reason: string,
  message: string,
) {
  const { deps, resource } = step.context;
  const condition: ConditionInput = {
    type: replacedCondition,
    status: value,
    reason,
    message,
    observedGeneration: resource.metadata.generation ?? 0,
  };
  return applyConditionChange(status.conditions, { set: [condition], remove: [] }, new Date(deps.now()));
}
