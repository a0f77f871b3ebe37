import { describe, expect, it } from "vitest";
import { appNames, serverOrderNames } from "../../api/meta.ts";
import type { KubeClient } from "../../runtime/index.ts";
import { resourceTypeOf } from "./resource-type.ts";
import { type SpendCall, SpendLedger } from "./spend-ledger.ts";

const now = Date.parse("2026-01-01T12:00:00Z");
const namespace = "team";

type Stored = {
  apiVersion?: string;
  kind: string;
  metadata: Record<string, unknown>;
  spec?: unknown;
  status?: Record<string, unknown>;
};

/** An apiserver of one namespace: lists by plural, and SpendLimit status writes that bump the version. */
function apiserver(objects: Record<string, Stored[]>) {
  const writes: Stored[] = [];
  const kube = {
    async call(method: string, path: string, options: { body?: Stored } = {}) {
      const plural = path.split("/").at(path.endsWith("/status") ? -3 : -1) ?? "";
      if (method === "GET") return { items: objects[plural] ?? [] };
      const body = options.body as Stored;
      const list = objects.spendlimits ?? [];
      const index = list.findIndex((o) => o.metadata.name === body.metadata.name);
      list[index] = { ...body, metadata: { ...body.metadata, resourceVersion: `${writes.length + 2}` } };
      writes.push(body);
      return list[index];
    },
  };
  return { kube: kube as unknown as KubeClient, writes };
}

const limit = (maxHourlyCost: string, status?: Record<string, unknown>): Stored => ({
  apiVersion: "berth.dev/v1alpha1",
  kind: "SpendLimit",
  metadata: { name: "budget", namespace, uid: "sl", resourceVersion: "1" },
  spec: { maxHourlyCost },
  ...(status === undefined ? {} : { status }),
});

const order = (name: string, status: Record<string, unknown> = {}): Stored => ({
  kind: "ServerOrder",
  metadata: { name, namespace, uid: `uid-${name}` },
  status,
});

const intent = (state: string, room: string, since = "2026-01-01T11:59:00Z") => ({
  operation: "orderServers",
  key: "k1",
  input: "{}",
  attempt: 1,
  since,
  state,
  room,
});

const ask = (resource: string, call: SpendCall["ask"]): SpendCall => ({
  namespace,
  resource: `ServerOrder/${resource}`,
  uid: `uid-${resource}`,
  ask: call,
  doing: "ordering the servers",
});

function ledger(objects: Record<string, Stored[]>) {
  const server = apiserver(objects);
  const costed = [appNames, serverOrderNames].map(resourceTypeOf);
  return { ledger: new SpendLedger({ kube: server.kube, costed, now: () => now }), writes: server.writes };
}

describe("SpendLedger: the room in flight, read from the resources themselves", () => {
  it.each([
    ["a Pending call's room (the SpendLimit re-created without status)", [intent("Pending", "0.104")], false],
    ["a NotFound call's room while its key may still act", [intent("NotFound", "0.104")], false],
    [
      "a NotFound call older than the key's 24 hours: it can no longer act",
      [intent("NotFound", "0.104", "2025-12-31T11:00:00Z")],
      true,
    ],
    ["a Refused call: it did not act", [intent("Refused", "0.104")], true],
  ])("%s", async (_, intents, admitted) => {
    const { ledger: spend } = ledger({
      spendlimits: [limit("0.15")],
      serverorders: [order("first", { intents }), order("second")],
    });
    const decision = await spend.admit(ask("second", { priced: "0.052" }));
    expect(decision.admitted).toBe(admitted);
  });

  it.each([
    [
      "an answered call's room the resource keeps (status.spendRoom), its cost not shown yet",
      "0.0000",
      false,
    ],
    ["the same room once the resource states at least as much", "0.104", true],
  ])("%s", async (_, cost, admitted) => {
    const spendRoom = { hourly: "0.104", adds: "0.104", since: "2026-01-01T11:59:00Z", readyBefore: {} };
    const first = order("first", { spendRoom, cost: { hourly: { amount: cost, currency: "USD" } } });
    const { ledger: spend } = ledger({
      spendlimits: [limit(cost === "0.0000" ? "0.15" : "0.16")],
      serverorders: [first, order("second")],
    });
    expect((await spend.admit(ask("second", { priced: "0.052" }))).admitted).toBe(admitted);
  });

  it("admitted: the room is recorded on the SpendLimit and returned for the call's intent", async () => {
    const { ledger: spend, writes } = ledger({
      spendlimits: [limit("0.20")],
      serverorders: [order("first")],
    });
    expect(await spend.admit(ask("first", { priced: "0.104" }))).toEqual({
      admitted: true,
      room: "0.104",
      spendRoom: { hourly: "0.104", adds: "0.104", since: "2026-01-01T12:00:00.000Z", readyBefore: {} },
    });
    expect(writes.at(-1)?.status?.commitments).toEqual([expect.objectContaining({ hourly: "0.104" })]);
  });

  it("an [Observe] resource's stated cost counts: it becomes berth's to manage by a switch that calls nothing", async () => {
    const observed = {
      ...order("imported", { cost: { hourly: { amount: "0.104", currency: "USD" } } }),
      spec: { managementPolicies: ["Observe"] },
    };
    const { ledger: spend } = ledger({
      spendlimits: [limit("0.15")],
      serverorders: [observed, order("new")],
    });
    expect((await spend.admit(ask("new", { priced: "0.052" }))).admitted).toBe(false);
  });
});

describe("SpendLedger: a call it can't price", () => {
  it("is refused under a SpendLimit, saying why, and recorded nowhere", async () => {
    const { ledger: spend, writes } = ledger({ spendlimits: [limit("100")], serverorders: [order("first")] });
    const decision = await spend.admit(ask("first", { unpriced: "the service names no price for it" }));
    expect(decision).toEqual({
      admitted: false,
      message: expect.stringContaining(
        "ordering the servers can't be priced: the service names no price for it. Under SpendLimit budget",
      ),
    });
    expect(writes).toEqual([]);
  });

  it("goes on in a namespace without a SpendLimit", async () => {
    const { ledger: spend } = ledger({ serverorders: [order("first")] });
    expect(await spend.admit(ask("first", { unpriced: "no price" }))).toEqual({ admitted: true });
  });
});
