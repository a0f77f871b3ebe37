import { describe, expect, it } from "vitest";
import { claimLockName, claimUnderWayMs, type LeaseHolderState, lockHolder } from "./claim-lock.ts";
import { claimValue } from "./claims.ts";

describe("lockHolder", () => {
  const since = Date.parse("2026-01-01T00:00:00Z");
  const claim = { namespace: "a", name: "web", uid: "u", claimedAt: since - 1000 };
  const cases: { name: string; state: LeaseHolderState; at: number; since?: number; holds: string }[] = [
    {
      name: "its holder records the claim: it holds",
      state: { gone: false, claim },
      at: since + 3_600_000,
      holds: "a/web@u",
    },
    {
      name: "its claim is under way: it holds",
      state: { gone: false, claim: undefined },
      at: since + 1000,
      holds: "a/web@",
    },
    {
      name: "the claim never came (or was given up): the Lease is free",
      state: { gone: false, claim: undefined },
      at: since + claimUnderWayMs,
      holds: "free",
    },
    {
      name: "its holder is gone (deleted with Orphan): free at once",
      state: { gone: true },
      at: since + 1000,
      holds: "free",
    },
    {
      name: "a Lease without a time is free",
      state: { gone: false, claim: undefined },
      at: since,
      since: Number.NaN,
      holds: "free",
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const holder = lockHolder("a/web", c.since ?? since, c.state, c.at);
      expect(holder === undefined ? "free" : `${holder.namespace}/${holder.name}@${holder.uid}`).toBe(
        c.holds,
      );
    });
  }
});

describe("claimLockName", () => {
  it("is a valid object name, the same for every claimant of one object", () => {
    const name = claimLockName(claimValue({ group: "berth.dev", version: "v1alpha1", plural: "apps" }, "a1"));
    expect(name).toMatch(/^berth-claim-[0-9a-f]{40}$/);
  });
});
