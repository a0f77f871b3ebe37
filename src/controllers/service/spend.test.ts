import { describe, expect, it } from "vitest";
import { type CostedResource, decide, formatMicros, toMicros, withRefused } from "./spend.ts";

const now = new Date("2026-01-01T12:00:00Z");
const ttl = 30 * 60_000;
const costed = (resource: string, cost?: string, readySince?: string): CostedResource => ({
  resource,
  uid: `uid-${resource}`,
  cost: cost === undefined ? undefined : toMicros(cost),
  readySince,
});
const commitment = (resource: string, hourly: string, since = "2026-01-01T11:59:00.000Z") => ({
  resource,
  uid: `uid-${resource}`,
  hourly,
  adds: hourly,
  since,
});

/** A resource with a call in flight that recorded `room` on its intent, not costed yet. */
const inFlight = (resource: string, room: string): CostedResource => ({
  ...costed(resource),
  inFlight: toMicros(room),
});

/** App/a Ready True since `since` for `generation`, costed at `cost`. */
const readyApp = (cost: string, since: string, generation: number): CostedResource => ({
  ...costed("App/a", cost, since),
  readyGeneration: generation,
});
/** A commitment of App/a that saw Ready True since `since` for `generation` when the room was taken. */
const sawReady = (hourly: string, taken: string | undefined, since: string, generation: number) => ({
  ...commitment("App/a", hourly, taken),
  readyBefore: { lastTransitionTime: since, observedGeneration: generation },
});

describe("decide", () => {
  it.each([
    {
      case: "room left",
      limit: "0.20",
      resources: [costed("App/a", "0.05"), costed("ServerOrder/new")],
      commitments: [],
      ask: "0.104",
      admitted: true,
      adds: "0.104",
    },
    {
      case: "above the room left",
      limit: "0.20",
      resources: [costed("App/a", "0.10"), costed("ServerOrder/new")],
      commitments: [],
      ask: "0.104",
      admitted: false,
      adds: "0.104",
    },
    {
      case: "exactly the limit",
      limit: "0.20",
      resources: [costed("App/a", "0.096"), costed("ServerOrder/new")],
      commitments: [],
      ask: "0.104",
      admitted: true,
      adds: "0.104",
    },
    {
      case: "an order in flight counts until costed",
      limit: "0.15",
      resources: [costed("ServerOrder/first"), costed("ServerOrder/second")],
      commitments: [commitment("ServerOrder/first", "0.104")],
      ask: "0.104",
      admitted: false,
      adds: "0.104",
    },
    {
      case: "a commitment gone once its resource is costed at least as much",
      limit: "0.25",
      resources: [costed("ServerOrder/first", "0.104"), costed("ServerOrder/second")],
      commitments: [commitment("ServerOrder/first", "0.104")],
      ask: "0.104",
      admitted: true,
      adds: "0.104",
    },
    {
      case: "an expired commitment no longer counts",
      limit: "0.15",
      resources: [costed("ServerOrder/first"), costed("ServerOrder/second")],
      commitments: [commitment("ServerOrder/first", "0.104", "2026-01-01T11:00:00.000Z")],
      ask: "0.104",
      admitted: true,
      adds: "0.104",
    },
    {
      case: "an App Ready since the call: its stated cost replaces the reserve",
      limit: "0.20",
      resources: [costed("App/a", "0.02", "2026-01-01T11:59:30Z"), costed("App/b")],
      commitments: [commitment("App/a", "0.10")],
      ask: "0.10",
      admitted: true,
      adds: "0.10",
    },
    {
      case: "a commitment from before readyBefore: a Ready in the second of the call (maybe before it) is not enough",
      limit: "0.19",
      resources: [costed("App/a", "0.02", "2026-01-01T11:59:00Z"), costed("App/b")],
      commitments: [commitment("App/a", "0.10", "2026-01-01T11:59:00.400Z")],
      ask: "0.10",
      admitted: false,
      adds: "0.10",
    },
    {
      case: "an App not Ready at the call, Ready in the call's second: its stated cost replaces the reserve",
      limit: "0.19",
      resources: [costed("App/a", "0.02", "2026-01-01T11:59:00Z"), costed("App/b")],
      commitments: [{ ...commitment("App/a", "0.10", "2026-01-01T11:59:00.400Z"), readyBefore: {} }],
      ask: "0.10",
      admitted: true,
      adds: "0.10",
    },
    {
      case: "an App Ready at the call, the same Ready still: the reserve counts",
      limit: "0.19",
      resources: [readyApp("0.02", "2026-01-01T11:59:00Z", 2), costed("App/b")],
      commitments: [sawReady("0.10", "2026-01-01T11:59:00.400Z", "2026-01-01T11:59:00Z", 2)],
      ask: "0.10",
      admitted: false,
      adds: "0.10",
    },
    {
      case: "an App Ready at the call, Ready anew since (a transition in the same second): the reserve ends",
      limit: "0.19",
      resources: [readyApp("0.02", "2026-01-01T11:59:01Z", 2), costed("App/b")],
      commitments: [sawReady("0.10", "2026-01-01T11:59:00.400Z", "2026-01-01T11:58:59Z", 2)],
      ask: "0.10",
      admitted: true,
      adds: "0.10",
    },
    {
      case: "an App Ready all along (instances raised): Ready for the later spec ends the reserve",
      limit: "0.20",
      resources: [readyApp("0.036", "2026-01-01T10:00:00Z", 3), costed("App/b")],
      commitments: [sawReady("0.30", undefined, "2026-01-01T10:00:00Z", 2)],
      ask: "0.10",
      admitted: true,
      adds: "0.10",
    },
    {
      case: "an App Ready all along, still Ready for the spec before the call: the reserve counts",
      limit: "0.20",
      resources: [readyApp("0.036", "2026-01-01T10:00:00Z", 2), costed("App/b")],
      commitments: [sawReady("0.30", undefined, "2026-01-01T10:00:00Z", 2)],
      ask: "0.10",
      admitted: false,
      adds: "0.10",
    },
    {
      case: "a call in flight (its intent's room) counts with no commitment: a SpendLimit re-created forgets none",
      limit: "0.15",
      resources: [inFlight("ServerOrder/first", "0.104"), costed("ServerOrder/second")],
      commitments: [],
      ask: "0.052",
      admitted: false,
      adds: "0.052",
    },
    {
      case: "a call in flight counts even past its commitment's 30 minutes, until it settles",
      limit: "0.15",
      resources: [inFlight("ServerOrder/first", "0.104"), costed("ServerOrder/second")],
      commitments: [commitment("ServerOrder/first", "0.104", "2026-01-01T11:00:00.000Z")],
      ask: "0.052",
      admitted: false,
      adds: "0.052",
    },
    {
      case: "a commitment and a call in flight of one resource count once, at the larger",
      limit: "0.16",
      resources: [inFlight("ServerOrder/first", "0.104"), costed("ServerOrder/second")],
      commitments: [commitment("ServerOrder/first", "0.104")],
      ask: "0.052",
      admitted: true,
      adds: "0.052",
    },
    {
      case: "a call in flight counts only above what its resource costs",
      limit: "0.16",
      resources: [
        { ...inFlight("ServerOrder/first", "0.104"), cost: toMicros("0.052") },
        costed("ServerOrder/second"),
      ],
      commitments: [],
      ask: "0.052",
      admitted: true,
      adds: "0.052",
    },
    {
      case: "the resource's own call in flight is what it already holds: a call asking no more adds nothing",
      limit: "0.05",
      resources: [inFlight("ServerOrder/s", "0.104")],
      commitments: [],
      ask: "0.104",
      admitted: false,
      adds: "0.00",
    },
    {
      case: "a growth adds only the difference",
      limit: "0.20",
      resources: [costed("ServerOrder/s", "0.104")],
      commitments: [],
      ask: "0.156",
      admitted: true,
      adds: "0.052",
    },
  ])("$case", ({ limit, resources, commitments, ask, admitted, adds }) => {
    const resource = resources.at(-1)?.resource ?? "";
    const request = { resource, uid: `uid-${resource}`, hourly: toMicros(ask) ?? 0n };
    const verdict = decide(toMicros(limit) ?? 0n, resources, commitments, request, now, ttl);
    expect({ admitted: verdict.admitted, adds: formatMicros(verdict.adds) }).toEqual({ admitted, adds });
  });
});

describe("toMicros", () => {
  it.each([
    ["0.0520", 52_000n],
    ["2", 2_000_000n],
    ["0.0000001", 1n],
    ["x", undefined],
  ])("%s", (amount, micros) => expect(toMicros(amount)).toBe(micros));
});

describe("withRefused: the refused, oldest refusal first (the order a raised limit wakes them in)", () => {
  const at = (minute: number) => `2030-01-01T00:${String(minute).padStart(2, "0")}:00.000Z`;
  const entry = (resource: string, minute: number, adds = "0.1") => ({ resource, adds, since: at(minute) });

  it("a new refusal goes after the older ones", () => {
    const list = withRefused([entry("ServerOrder/a", 1)], entry("App/b", 5));
    expect(list.map((r) => r.resource)).toEqual(["ServerOrder/a", "App/b"]);
  });

  it("a resource refused again keeps its first refusal's place and time, with what it adds now", () => {
    const list = withRefused(
      [entry("ServerOrder/a", 1), entry("App/b", 5)],
      entry("ServerOrder/a", 9, "0.3"),
    );
    expect(list).toEqual([entry("ServerOrder/a", 1, "0.3"), entry("App/b", 5)]);
  });
});
