import { describe, expect, it } from "vitest";
import { getCondition } from "../../api/conditions.ts";
import { finalizer } from "../../api/meta.ts";
import { type ServerOrder, serverOrderSchema } from "../../api/server-order.ts";
import type { Me, Order, Server } from "../../hosting/index.ts";
import type { Failure } from "../service/failure.ts";
import { pendingRecord } from "../skeleton/intents.ts";
import type { OrderAction } from "./actions.ts";
import type { OrderObserved } from "./memory.ts";
import { planServerOrder } from "./plan.ts";
import type { OrderPlan } from "./plan-common.ts";
import { parseReplaceRequest } from "./replacement.ts";

const now = new Date("2030-01-01T01:00:00Z");
const placement = {
  csp: "native",
  region: "eu-central",
  zone: "eu-central-1a",
  instanceType: "native.small",
};
const a = `0x${"a".repeat(40)}`;
const b = `0x${"b".repeat(40)}`;
const c = `0x${"c".repeat(40)}`;
const placed = { orderId: "ord_1", phase: "Provisioned" };
const annotation = "berth.dev/replace-server";

function serverOrder(
  options: { spec?: Record<string, unknown>; status?: Record<string, unknown>; request?: string } = {},
): ServerOrder {
  const annotations = options.request === undefined ? {} : { [annotation]: options.request };
  return serverOrderSchema.parse({
    apiVersion: "berth.dev/v1alpha1",
    kind: "ServerOrder",
    metadata: { name: "batch", uid: "uid-1", generation: 1, finalizers: [finalizer], annotations },
    spec: { ...placement, count: 2, approved: true, maxHourlyCost: "1", ...options.spec },
    status: { ...placed, ...options.status },
  });
}

const me = (scopes: string[]): Me => ({
  user: { id: "u1", email: "u@example.test" },
  apiKey: { id: "k1", scopes, projectIds: [], expiresAt: null },
  oauthClient: null,
});

function order(id: string, state = "completed", count = 2): Order {
  return { ...placement, id, state, count, gridIds: [], servers: [], error: null };
}

function server(address: string, state = "running", orderId = "ord_1"): Server {
  return { address, orderId, gridIds: [], state, ...placement, createdAt: "2030-01-01T00:10:00Z" };
}

function observed(overrides: Partial<OrderObserved> = {}): OrderObserved {
  return {
    problem: undefined,
    me: me(["pools:write", "compute:spend"]),
    grids: { ok: true, gridIds: [] },
    catalog: undefined,
    estimate: undefined,
    order: order("ord_1"),
    gone: false,
    servers: [server(a), server(b)],
    candidates: undefined,
    refused: undefined,
    requestId: "req_1",
    growthOrders: [],
    replacementOrders: [],
    ...overrides,
  };
}

const plan = (object: ServerOrder, overrides: Partial<OrderObserved> = {}) =>
  planServerOrder({ serverOrder: object, observed: observed(overrides), now });

function summary(result: OrderPlan) {
  const condition = (type: string) => getCondition(result.status.conditions, type);
  const reconciling = condition("Reconciling");
  const stalled = condition("Stalled");
  return {
    actions: result.actions.map((x) => x.type),
    reason:
      stalled?.status === "True"
        ? stalled.reason
        : reconciling?.status === "True"
          ? reconciling.reason
          : condition("Ready")?.reason,
    replaced: condition("Replaced")?.reason,
  };
}

const replacing = {
  address: a,
  idempotencyKey: "replaceServer.uid-1.abc",
  request: `${a}@t1`,
  since: "2030-01-01T00:59:00Z",
};
const retiredA = [server(a, "retiring"), server(b), server(c, "provisioning", "ord_r")];

describe("replacing servers", () => {
  it.each<[string, () => OrderPlan, ReturnType<typeof summary>]>([
    [
      "replaces the annotated server",
      () => plan(serverOrder({ request: `${a}@t1` })),
      { actions: ["replace"], reason: "Progressing", replaced: undefined },
    ],
    [
      "does nothing for a value already handled",
      () => plan(serverOrder({ request: `${a}@t1`, status: { lastHandledReplaceServer: `${a}@t1` } })),
      { actions: [], reason: "Succeeded", replaced: undefined },
    ],
    [
      "refuses an address that is not one of its servers, once",
      () => plan(serverOrder({ request: `${c}@t1` })),
      { actions: ["refuseReplace"], reason: undefined, replaced: "ReplaceRefused" },
    ],
    [
      "refuses a malformed value",
      () => plan(serverOrder({ request: "0x12@t1" })),
      { actions: ["refuseReplace"], reason: undefined, replaced: "ReplaceRefused" },
    ],
    [
      "refuses a server already on its way out",
      () => plan(serverOrder({ request: `${a}@t1` }), { servers: [server(a, "retiring"), server(b)] }),
      { actions: ["refuseReplace"], reason: undefined, replaced: "ReplaceRefused" },
    ],
    [
      "waits for spec.approved before replacing the annotated server (a replacement is an order)",
      () => plan(serverOrder({ request: `${a}@t1`, spec: { approved: false } })),
      { actions: [], reason: "AwaitingApproval", replaced: "AwaitingApproval" },
    ],
    [
      "waits for spec.approved before replacing a failed server (autoReplace)",
      () =>
        plan(serverOrder({ spec: { approved: false, autoReplace: true } }), {
          servers: [server(a, "failed"), server(b)],
        }),
      { actions: [], reason: "AwaitingApproval", replaced: "AwaitingApproval" },
    ],
    [
      "waits for a hibernating server to settle before replacing it",
      () => plan(serverOrder({ request: `${a}@t1` }), { servers: [server(a, "hibernating"), server(b)] }),
      { actions: [], reason: "Progressing", replaced: undefined },
    ],
    [
      "needs pools:write and compute:spend before calling",
      () => plan(serverOrder({ request: `${a}@t1` }), { me: me(["pools:write"]) }),
      { actions: [], reason: "MissingScopes", replaced: undefined },
    ],
    [
      "sends a call whose answer was lost again",
      () => plan(serverOrder({ status: { replacing, lastHandledReplaceServer: `${a}@t1` } })),
      { actions: ["replace"], reason: "Progressing", replaced: undefined },
    ],
    [
      "waits for the replacement order, not ServersMissing",
      () =>
        plan(
          serverOrder({
            status: { replacements: [{ address: a, orderId: "ord_r", at: "2030-01-01T00:59:00Z" }] },
          }),
          { servers: [server(a, "retiring"), server(b)], replacementOrders: [order("ord_r", "pending", 1)] },
        ),
      { actions: [], reason: "Progressing", replaced: undefined },
    ],
    [
      "is Ready with the new server once the replacement order delivered it",
      () =>
        plan(
          serverOrder({
            status: { replacements: [{ address: a, orderId: "ord_r", at: "2030-01-01T00:59:00Z" }] },
          }),
          {
            servers: [server(b), server(c, "running", "ord_r")],
            replacementOrders: [order("ord_r", "completed", 1)],
          },
        ),
      { actions: [], reason: "Succeeded", replaced: undefined },
    ],
    [
      "waits while the new server provisions",
      () =>
        plan(serverOrder({ status: { replacements: [{ address: a, orderId: "ord_r", at: "x" }] } }), {
          servers: retiredA,
          replacementOrders: [order("ord_r", "completed", 1)],
        }),
      { actions: [], reason: "Progressing", replaced: undefined },
    ],
    [
      "a failed replacement order leaves one server fewer: spec.count orders it again after a dry run",
      () =>
        plan(serverOrder({ status: { replacements: [{ address: a, orderId: "ord_r", at: "x" }] } }), {
          servers: [server(b)],
          replacementOrders: [order("ord_r", "failed", 1)],
        }),
      { actions: ["estimate"], reason: "Progressing", replaced: undefined },
    ],
    [
      "reports a failed server without spec.autoReplace: Stalled ServerFailed",
      () => plan(serverOrder(), { servers: [server(a, "failed"), server(b)] }),
      { actions: [], reason: "ServerFailed", replaced: undefined },
    ],
    [
      "replaces a failed server with spec.autoReplace",
      () => plan(serverOrder({ spec: { autoReplace: true } }), { servers: [server(a, "failed"), server(b)] }),
      { actions: ["replace"], reason: "Progressing", replaced: undefined },
    ],
    [
      "replaces one failed server at a time",
      () =>
        plan(
          serverOrder({
            spec: { autoReplace: true },
            status: { replacements: [{ address: a, orderId: "ord_r", at: "x" }] },
          }),
          {
            servers: [server(a, "retiring"), server(b, "failed")],
            replacementOrders: [order("ord_r", "pending", 1)],
          },
        ),
      { actions: [], reason: "Progressing", replaced: undefined },
    ],
  ])("%s", (_, run, expected) => {
    expect(summary(run())).toEqual(expected);
  });

  const replaceOf = (result: OrderPlan) =>
    result.actions.find((x): x is Extract<OrderAction, { type: "replace" }> => x.type === "replace");

  it("derives the key from uid, address and token: the same request, the same key; a new token, a new one", () => {
    const key = (request: string, uid = "uid-1") => {
      const object = serverOrder({ request });
      object.metadata.uid = uid;
      return replaceOf(plan(object))?.intent.key;
    };
    expect(key(`${a}@t1`)).toMatch(/^replaceServer\.uid-1\./);
    expect(key(`${a}@t1`)).toBe(key(`${a}@t1`));
    expect(key(`${a}@t1`)).not.toBe(key(`${a}@t2`));
    expect(key(`${a}@t1`)).not.toBe(key(`${b}@t1`));
    expect(key(`${a}@t1`)).not.toBe(key(`${a}@t1`, "uid-2"));
  });

  it("gives the same key whatever case the request's address is written in", () => {
    const key = (request: string) => replaceOf(plan(serverOrder({ request })))?.intent.key;
    expect(key(`${a}@t1`)).toBe(key(`${a.toUpperCase().replace("0X", "0x")}@t1`));
  });

  it("carries an intent whose input holds the server, the request and the placement; echoes the request", () => {
    const result = plan(serverOrder({ request: `${a}@t1` }));
    const first = replaceOf(result);
    expect(first).toMatchObject({ address: a, request: `${a}@t1`, state: "running", again: false });
    expect(first?.intent).toMatchObject({
      operation: "replaceServer",
      attempt: 1,
      input: { address: a, token: "t1", request: `${a}@t1`, placement },
    });
    // The echo goes with the status written after the call, not as a marker before it.
    expect(result.status.lastHandledReplaceServer).toBe(`${a}@t1`);
    expect(result.status.replacing).toBeUndefined();
    expect(getCondition(result.status.conditions, "Reconciling")?.status).toBe("True");
  });

  it("resends a call an earlier version marked (status.replacing) under the key it recorded", () => {
    const again = replaceOf(plan(serverOrder({ status: { replacing } })));
    expect(again).toMatchObject({
      type: "replace",
      address: a,
      request: replacing.request,
      again: true,
      intent: { operation: "replaceServer", key: replacing.idempotencyKey, input: { address: a } },
    });
  });

  it("keeps the key after a lookup found the call did not act, and changes it after a definite refusal", () => {
    const object = serverOrder({ request: `${a}@t1` });
    const first = replaceOf(plan(object));
    if (first === undefined) throw new Error("no replace planned");
    const ended = (state: "NotFound" | "Refused") =>
      serverOrder({
        request: `${a}@t1`,
        status: { intents: [{ ...pendingRecord(first.intent, undefined, now), state }] },
      });
    const retried = replaceOf(plan(ended("NotFound")));
    expect(retried?.intent.key).toBe(first.intent.key);
    const afterRefusal = replaceOf(plan(ended("Refused")));
    expect(afterRefusal?.intent.attempt).toBe(2);
    expect(afterRefusal?.intent.key).not.toBe(first.intent.key);
  });

  it("after the service refused a replace call: calls nothing more now, Replaced False says why", () => {
    const refusal: Failure = {
      stalled: true,
      reason: "Forbidden",
      message: "replacing the server failed: not replaceable (request req_2)",
      requestId: "req_2",
      uncertain: false,
      refreshIdentity: false,
      retryAfterMs: undefined,
    };
    const result = plan(serverOrder({ request: `${a}@t1` }), { replaceRefused: refusal });
    expect(result.actions).toEqual([]);
    expect(getCondition(result.status.conditions, "Replaced")).toMatchObject({
      status: "False",
      reason: "Forbidden",
      message: refusal.message,
    });
    expect(getCondition(result.status.conditions, "Stalled")?.status).toBe("True");
  });

  it("keys an automatic replacement by the failed address, so a restart never replaces twice", () => {
    const auto = (uid: string) => {
      const object = serverOrder({ spec: { autoReplace: true } });
      object.metadata.uid = uid;
      return replaceOf(plan(object, { servers: [server(a, "failed"), server(b)] }));
    };
    expect(auto("uid-1")?.intent.key).toBe(auto("uid-1")?.intent.key);
    expect(auto("uid-1")?.intent.key).not.toBe(auto("uid-2")?.intent.key);
    expect(auto("uid-1")?.intent.input).toMatchObject({ address: a, failed: true, placement });
    expect(auto("uid-1")?.request).toBeUndefined();
    expect(auto("uid-1")?.state).toBe("failed");
  });

  it("refuses a request without a call: the action only names why, the plan's status holds the echo", () => {
    const refused = plan(serverOrder({ request: `${c}@t1` }));
    expect(refused.actions).toEqual([{ type: "refuseReplace", message: expect.stringContaining(c) }]);
    expect(refused.status.lastHandledReplaceServer).toBe(`${c}@t1`);
  });

  it("leaves a request waiting for approval unhandled, so approving replaces it", () => {
    const waiting = plan(serverOrder({ request: `${a}@t1`, spec: { approved: false } }));
    expect(waiting.status.lastHandledReplaceServer).toBeUndefined();
    expect(getCondition(waiting.status.conditions, "Ready")?.message).toContain("set spec.approved: true");
  });

  it("echoes the refused value and says why", () => {
    const refused = plan(serverOrder({ request: `${c}@t1` }));
    expect(refused.status.lastHandledReplaceServer).toBe(`${c}@t1`);
    expect(getCondition(refused.status.conditions, "Replaced")?.message).toBe(
      `server ${c} is not one of this ServerOrder's servers (${a}, ${b}); nothing was replaced`,
    );
  });

  it.each([
    [`${a}@t1`, { address: a, token: "t1" }],
    [`${a.toUpperCase().replace("0X", "0x")}@ticket@2`, { address: a, token: "ticket@2" }],
    [`${a}@`, undefined],
    [a, undefined],
    ["@t1", undefined],
    ["0x12@t1", undefined],
  ])("parses %s", (value, expected) => {
    expect(parseReplaceRequest(value)).toEqual(expected);
  });
});
