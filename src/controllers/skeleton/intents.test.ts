import { describe, expect, it } from "vitest";
import type { Intent } from "../../api/intents.ts";
import { canonicalJson, idempotencyKey } from "../../hosting/index.ts";
import { settlingChange } from "./cleanup.ts";
import {
  describeIntent,
  endIntent,
  inputOf,
  intentCall,
  intentsOf,
  ownerMismatch,
  pendingIntent,
  pendingRecord,
  resentIntent,
  withIntent,
  withoutIntent,
} from "./intents.ts";

const now = new Date("2030-01-01T00:00:00Z");
const input = { request: { count: 2, zone: "eu-central-1a" } };

function resource(intents?: Intent[]) {
  return {
    metadata: { uid: "uid-1", name: "batch" },
    ...(intents === undefined ? {} : { status: { intents } }),
  };
}

/** The record an earlier reconcile left for `operation`, in `state`. */
function recorded(
  operation: string,
  state: Intent["state"],
  attempt = 1,
  args: Record<string, unknown> = input,
): Intent {
  return {
    ...pendingRecord(intentCall(resource(), operation, args), undefined, now),
    attempt,
    key: `${operation}.uid-1.attempt${attempt}`,
    state,
  };
}

describe("intentCall", () => {
  it("a first call is attempt 1, keyed by the uid, the operation, the input and the attempt", () => {
    const call = intentCall(resource(), "orderServers", input);
    expect(call).toEqual({
      operation: "orderServers",
      input,
      attempt: 1,
      key: idempotencyKey("uid-1", "orderServers", { ...input, attempt: 1 }),
    });
    expect(call.key).toMatch(/^orderServers\.uid-1\./);
  });

  it("the same input gives the same key, whatever order its fields were written in; another input another", () => {
    const a = intentCall(resource(), "orderServers", { request: { count: 2, zone: "eu-central-1a" } });
    const b = intentCall(resource(), "orderServers", { request: { zone: "eu-central-1a", count: 2 } });
    expect(a.key).toBe(b.key);
    expect(intentCall(resource(), "orderServers", { request: { count: 3 } }).key).not.toBe(a.key);
    expect(intentCall(resource(), "growServers", input).key).not.toBe(a.key);
    expect(intentCall({ metadata: { uid: "uid-2" } }, "orderServers", input).key).not.toBe(a.key);
  });

  it("falls back to the name without a uid", () => {
    const call = intentCall({ metadata: { name: "batch" } }, "orderServers", input);
    expect(call.key).toMatch(/^orderServers\.batch\./);
  });

  it.each<[string, Intent["state"], number]>([
    ["after a refused attempt: the next attempt, so a new key", "Refused", 3],
    [
      "after one that did not act: the same attempt, so the service replays it should it have acted",
      "NotFound",
      2,
    ],
    ["while one is pending: the same attempt, never a second call under a new key", "Pending", 2],
  ])("%s", (_name, state, attempt) => {
    const call = intentCall(resource([recorded("orderServers", state, 2)]), "orderServers", input);
    expect(call.attempt).toBe(attempt);
    expect(call.key).toBe(idempotencyKey("uid-1", "orderServers", { ...input, attempt }));
    const first = intentCall(resource(), "orderServers", input);
    if (state === "Refused") expect(call.key).not.toBe(first.key);
  });

  it("after a NotFound attempt 1, the same input keeps the first key", () => {
    const first = intentCall(resource(), "orderServers", input);
    const again = intentCall(resource([recorded("orderServers", "NotFound")]), "orderServers", input);
    expect(again).toEqual(first);
  });

  it("only the operation's own record counts", () => {
    const call = intentCall(resource([recorded("growServers", "Refused", 4)]), "orderServers", input);
    expect(call.attempt).toBe(1);
  });

  it("reads a status without intents, or none at all", () => {
    expect(intentCall({ metadata: { uid: "uid-1" }, status: {} }, "orderServers", input).attempt).toBe(1);
    expect(intentCall({ metadata: { uid: "uid-1" }, status: undefined }, "orderServers", input).attempt).toBe(
      1,
    );
  });
});

describe("records", () => {
  it("pendingRecord: the call's input as canonical JSON, the owner when known, the time it is sent", () => {
    const call = intentCall(resource(), "orderServers", { b: 1, a: { d: 2, c: 3 } });
    const owner = { userId: "u1", credential: "key-abc" };
    expect(pendingRecord(call, owner, now)).toEqual({
      operation: "orderServers",
      key: call.key,
      input: '{"a":{"c":3,"d":2},"b":1}',
      attempt: 1,
      owner,
      since: "2030-01-01T00:00:00.000Z",
      state: "Pending",
    });
    expect(pendingRecord(call, undefined, now)).not.toHaveProperty("owner");
  });

  it("withIntent puts the record in place of its operation's entry, keeping the others", () => {
    const order = recorded("orderServers", "Refused");
    const grow = recorded("growServers", "Pending");
    const next = recorded("orderServers", "Pending", 2);
    expect(withIntent([order, grow], next)).toEqual([grow, next]);
    expect(withIntent([], next)).toEqual([next]);
  });

  it("withoutIntent drops the operation's entry only", () => {
    const order = recorded("orderServers", "Pending");
    const grow = recorded("growServers", "Pending");
    expect(withoutIntent([order, grow], "orderServers")).toEqual([grow]);
    expect(withoutIntent([grow], "orderServers")).toEqual([grow]);
  });

  it("endIntent ends the operation's entry with a message, keeping its attempt and key", () => {
    const order = recorded("orderServers", "Pending", 2);
    const grow = recorded("growServers", "Pending");
    const ended = endIntent([order, grow], "orderServers", "Refused", "no credit");
    expect(ended).toEqual([{ ...order, state: "Refused", message: "no credit" }, grow]);
    expect(endIntent([order], "orderServers", "NotFound", "x".repeat(2000))[0]?.message).toHaveLength(1024);
  });

  it("the helpers leave the list they were given as it was", () => {
    const list = [recorded("orderServers", "Pending")];
    const copy = structuredClone(list);
    withIntent(list, recorded("orderServers", "Pending", 2));
    withoutIntent(list, "orderServers");
    endIntent(list, "orderServers", "Refused", "no");
    expect(list).toEqual(copy);
  });

  it("intentsOf and pendingIntent read a status leniently", () => {
    const pending = recorded("orderServers", "Pending");
    const refused = recorded("growServers", "Refused");
    expect(intentsOf(undefined)).toEqual([]);
    expect(intentsOf({})).toEqual([]);
    expect(pendingIntent({ intents: [pending, refused] }, "orderServers")).toBe(pending);
    expect(pendingIntent({ intents: [pending, refused] }, "growServers")).toBeUndefined();
  });
});

describe("inputOf", () => {
  const withInput = (text: string): Intent => ({ ...recorded("orderServers", "Pending"), input: text });

  it("parses the recorded input", () => {
    expect(inputOf(withInput(canonicalJson(input)))).toEqual(input);
  });

  it.each([
    ["not JSON", "{request:"],
    ["an array", "[1,2]"],
    ["a string", '"text"'],
    ["null", "null"],
    ["a number", "42"],
    ["empty", ""],
  ])("is undefined for %s", (_name, text) => {
    expect(inputOf(withInput(text))).toBeUndefined();
  });
});

describe("owners and messages", () => {
  const intent = { ...recorded("orderServers", "Pending"), owner: { userId: "u1", credential: "key-abc" } };

  it("ownerMismatch: only another user's key is a mismatch (another key of the same user is not)", () => {
    expect(ownerMismatch(intent, { userId: "u1", credential: "key-new" })).toBeUndefined();
    expect(ownerMismatch(intent, undefined)).toBeUndefined();
    expect(
      ownerMismatch({ ...intent, owner: undefined }, { userId: "u2", credential: "key-x" }),
    ).toBeUndefined();
    const message = ownerMismatch(intent, { userId: "u2", credential: "key-x" });
    expect(message).toContain("user u1 (key key-abc)");
    expect(message).toContain("user u2 (key key-x)");
    expect(message).toContain(intent.key);
  });

  it("describeIntent names the call, its attempt, key and time", () => {
    expect(describeIntent(intent)).toBe(
      `orderServers (attempt 1, Idempotency-Key ${intent.key}) sent at 2030-01-01T00:00:00.000Z`,
    );
  });

  it("settlingChange: Reconciling while looking, Stalled when stuck", () => {
    const looking = settlingChange([{ intent, note: "looking for the order" }], undefined, 3);
    expect(looking.set).toContainEqual(
      expect.objectContaining({
        type: "Reconciling",
        status: "True",
        message: "settling orderServers: looking for the order before acting on the spec",
        observedGeneration: 3,
      }),
    );
    const stuck = settlingChange([], { reason: "IntentUnsettled", message: "two orders" }, 3);
    expect(stuck.set).toContainEqual(
      expect.objectContaining({
        type: "Stalled",
        status: "True",
        reason: "IntentUnsettled",
        message: "two orders",
      }),
    );
  });
});

describe("resentIntent: a call sent again under its recorded key keeps its first room, unpriced", () => {
  const call = { operation: "orderServers", input, attempt: 1, key: "key-1" };
  const record = (state: Intent["state"], since = "2029-12-31T12:00:00.000Z"): Intent => ({
    ...pendingRecord(call, undefined, new Date(since), "0.104"),
    state,
  });
  it.each([
    ["Pending: its outcome unknown", record("Pending"), "0.104"],
    ["NotFound while its key may still act (under 24 h)", record("NotFound"), "0.104"],
    [
      "NotFound past the key's 24 hours: a new call, priced",
      record("NotFound", "2029-12-30T23:00:00.000Z"),
      undefined,
    ],
    ["Refused: the next attempt has another key anyway", record("Refused"), undefined],
    ["another key: another call", { ...record("Pending"), key: "key-0" }, undefined],
  ])("%s", (_, intent, room) => {
    expect(resentIntent([intent], call, now)?.room).toBe(room);
  });
  it("an action without an intent is never a call sent again", () => {
    expect(resentIntent([record("Pending")], undefined, now)).toBeUndefined();
  });
});
