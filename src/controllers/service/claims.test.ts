import { describe, expect, it } from "vitest";
import type { KubeObject } from "../../runtime/index.ts";
import { type Claim, ClaimWaiters, claimMetadata, claimValue, heldClaim, holderBefore } from "./claims.ts";

const apps = { group: "berth.dev", version: "v1alpha1", plural: "apps", kind: "App" };

/** A resource `namespace/name` whose claimant annotation names `claimant`, for app `id`. */
function resource(
  key: string,
  { claimant = key, id = "a1", at, created = "2026-01-01T00:00:00Z" }: Partial<Record<string, string>> = {},
): KubeObject {
  const [namespace = "", name = ""] = key.split("/");
  return {
    metadata: {
      namespace,
      name,
      uid: `uid-${key}`,
      creationTimestamp: created,
      labels: { "berth.dev/claim": claimValue(apps, id) },
      annotations: {
        "berth.dev/external-id": id,
        "berth.dev/claimant": claimant,
        ...(at === undefined ? {} : { "berth.dev/claimed-at": at }),
      },
    },
  };
}

const names = (claim: Claim | undefined) =>
  claim === undefined ? "none" : `${claim.namespace}/${claim.name}`;

describe("heldClaim", () => {
  it("is the resource's own claim only when the claimant annotation names the resource itself", () => {
    expect(heldClaim(resource("a/web", { at: "2026-01-02T00:00:00Z" }), "a1")?.claimedAt).toBe(
      Date.parse("2026-01-02T00:00:00Z"),
    );
    // A copy (another name, or the same name in another namespace) carries the holder's claimant.
    expect(heldClaim(resource("a/web-copy", { claimant: "a/web" }), "a1")).toBeUndefined();
    expect(heldClaim(resource("b/web", { claimant: "a/web" }), "a1")).toBeUndefined();
    // A claim on another object is no claim on this one.
    expect(heldClaim(resource("a/web"), "a2")).toBeUndefined();
  });

  it("dates a claim recorded without a time from the resource's creation", () => {
    expect(heldClaim(resource("a/web", { created: "2025-05-05T00:00:00Z" }), "a1")?.claimedAt).toBe(
      Date.parse("2025-05-05T00:00:00Z"),
    );
  });
});

describe("claim time", () => {
  it("never dates before the resource holding it was created (a copy or a restore carried it in)", () => {
    const original = resource("a/web", { at: "2026-01-01T00:00:05Z", created: "2026-01-01T00:00:00Z" });
    // A copy made later whose claimant annotation a person edited to its own name, time kept.
    const forged = resource("a/web-copy", { at: "2026-01-01T00:00:05Z", created: "2026-01-02T00:00:00Z" });
    expect(heldClaim(forged, "a1")?.claimedAt).toBe(Date.parse("2026-01-02T00:00:00Z"));
    expect(names(holderBefore(heldClaim(forged, "a1"), "a1", [original, forged]))).toBe("a/web");
    expect(names(holderBefore(heldClaim(original, "a1"), "a1", [original, forged]))).toBe("none");
    // The same with the original's UID sorting last: the tie is gone, not broken by UID.
    const late = { ...original, metadata: { ...original.metadata, uid: "zzz" } };
    expect(names(holderBefore(heldClaim(forged, "a1"), "a1", [late, forged]))).toBe("a/web");
  });
});

describe("holderBefore", () => {
  const early = resource("a/web", { at: "2026-01-01T00:00:01Z" });
  const late = resource("b/web", { at: "2026-01-01T00:00:02Z" });
  const copy = resource("a/web-copy", { claimant: "a/web", at: "2026-01-01T00:00:00Z" });
  const cases: { name: string; mine: KubeObject | undefined; others: KubeObject[]; holder: string }[] = [
    { name: "nobody else claims it", mine: early, others: [early], holder: "none" },
    { name: "a new claimant meets a holder", mine: undefined, others: [early], holder: "a/web" },
    { name: "a new claimant meets only copies", mine: undefined, others: [copy], holder: "none" },
    { name: "two claims at once: the later yields", mine: late, others: [early, late], holder: "a/web" },
    { name: "two claims at once: the earlier holds", mine: early, others: [early, late], holder: "none" },
    {
      name: "the earliest of several holders",
      mine: undefined,
      others: [late, early, copy],
      holder: "a/web",
    },
  ];
  for (const { name, mine, others, holder } of cases) {
    it(name, () => {
      const own = mine === undefined ? undefined : heldClaim(mine, "a1");
      expect(names(holderBefore(own, "a1", others))).toBe(holder);
    });
  }

  it("breaks a tie in time by UID, the same way for both claimants", () => {
    const at = "2026-01-01T00:00:00Z";
    const one = resource("a/one", { at });
    const two = resource("a/two", { at });
    const first = names(holderBefore(heldClaim(two, "a1"), "a1", [one, two]));
    const second = names(holderBefore(heldClaim(one, "a1"), "a1", [one, two]));
    expect([first, second].sort()).toEqual(["a/one", "none"]);
  });
});

describe("claimMetadata", () => {
  it("records the claim as a selectable label and the claimant as namespace/name", () => {
    const claim = claimMetadata(apps, { namespace: "a", name: "web" }, "a1", "2026-01-01T00:00:00Z");
    expect(claim.labels["berth.dev/claim"]).toMatch(/^[0-9a-f]{40}$/);
    expect(claim.labels["berth.dev/claim"]).not.toBe(claimValue({ ...apps, plural: "grids" }, "a1"));
    expect(claim.annotations).toEqual({
      "berth.dev/external-id": "a1",
      "berth.dev/claimant": "a/web",
      "berth.dev/claimed-at": "2026-01-01T00:00:00Z",
    });
  });
});

describe("ClaimWaiters", () => {
  it("names the resources waiting for an object until they stop waiting or wait for another", () => {
    const waiters = new ClaimWaiters();
    waiters.wait(apps, "v1", "a/copy");
    waiters.wait(apps, "v1", "b/adopter");
    expect(waiters.waiting(apps, "v1").sort()).toEqual(["a/copy", "b/adopter"]);
    expect(waiters.waiting({ ...apps, plural: "grids" }, "v1")).toEqual([]);
    waiters.wait(apps, "v2", "a/copy");
    waiters.forget(apps, "b/adopter");
    expect(waiters.waiting(apps, "v1")).toEqual([]);
    expect(waiters.waiting(apps, "v2")).toEqual(["a/copy"]);
  });
});
