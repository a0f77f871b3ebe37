import { describe, expect, it } from "vitest";
import type { KubeObject } from "../../runtime/index.ts";
import { alreadyManaged, coveredBy, identityMetadata, namedId } from "./claim.ts";
import type { Resource } from "./kind.ts";

const apps = { group: "berth.dev", version: "v1alpha1", plural: "apps", kind: "App" };

function app(status: Record<string, unknown> | undefined, annotations = {}, spec = {}): Resource {
  return { metadata: { annotations }, spec, status };
}

describe("namedId", () => {
  it("takes status first, then the identity annotation, then the spec", () => {
    const all = app({ appId: "s" }, { "berth.dev/external-id": "a" }, { appId: "p" });
    expect(namedId(all, "appId")).toEqual({ id: "s", named: "status" });
    expect(namedId(app({}, { "berth.dev/external-id": "a" }, { appId: "p" }), "appId")).toEqual({
      id: "a",
      named: "annotation",
    });
    expect(namedId(app(undefined, {}, { appId: "p" }), "appId")).toEqual({ id: "p", named: "spec" });
    expect(namedId(app(undefined, { "berth.dev/external-id": "" }), "appId")).toBeUndefined();
  });
});

describe("identityMetadata", () => {
  const now = new Date("2026-03-01T00:00:00Z");
  const object = (annotations: Record<string, string> = {}): KubeObject => ({
    metadata: { namespace: "a", name: "web", creationTimestamp: "2026-01-01T00:00:00Z", annotations },
  });
  const at = (m: ReturnType<typeof identityMetadata>) => m?.annotations["berth.dev/claimed-at"];

  it("claims an object the reconcile just learned of now, with the owner", () => {
    const status = { appId: "x", owner: { userId: "u1", credential: "key-1" } };
    const made = identityMetadata(
      { type: apps, externalId: "appId" },
      object(),
      { before: {}, now: status },
      now,
    );
    expect(made?.annotations).toMatchObject({
      "berth.dev/external-id": "x",
      "berth.dev/claimant": "a/web",
      "berth.dev/owner": "u1",
    });
    expect(at(made)).toBe(now.toISOString());
  });

  it("keeps the time of a claim already recorded; an ID in status without a claim is claimed now", () => {
    const recorded = object({
      "berth.dev/external-id": "x",
      "berth.dev/claimant": "a/web",
      "berth.dev/claimed-at": "2026-02-01T00:00:00Z",
    });
    expect(
      at(
        identityMetadata(
          { type: apps, externalId: "appId" },
          recorded,
          { before: {}, now: { appId: "x" } },
          now,
        ),
      ),
    ).toBe("2026-02-01T00:00:00Z");
    const legacy = object({ "berth.dev/external-id": "x" });
    const status = { appId: "x" };
    expect(
      at(identityMetadata({ type: apps, externalId: "appId" }, legacy, { before: status, now: status }, now)),
    ).toBe(now.toISOString());
  });

  it("claims nothing before status knows the ID, but keeps what it owns", () => {
    const pending = { intents: [{ operation: "orderServers", state: "Pending" }] };
    const kind = { type: apps, externalId: "appId" };
    expect(identityMetadata(kind, object(), { before: {}, now: pending }, now)).toEqual({
      labels: {},
      annotations: { "berth.dev/owned": JSON.stringify({ of: "a/web", ...pending }) },
    });
    expect(identityMetadata(kind, object(), { before: {}, now: {} }, now)).toEqual({
      labels: {},
      annotations: { "berth.dev/owned": null },
    });
  });
});

describe("alreadyManaged", () => {
  const holder = { namespace: "a", name: "web", uid: "u", claimedAt: 0 };
  it("names the holder, what to remove for a copy, and how to hand over", () => {
    const message = alreadyManaged(apps, "appId", { held: false, holder, id: "x", named: "annotation" });
    expect(message).toContain("App a/web already manages app x");
    expect(message).toContain("remove the annotations berth.dev/external-id and berth.dev/claimant");
    expect(message).toContain("set deletionPolicy: Orphan on App a/web and delete it");
  });
  it("tells one entering a managing policy over what another manages to go on observing", () => {
    const message = alreadyManaged(apps, "appId", { held: false, holder, id: "x", named: "status" });
    expect(message).toContain("set managementPolicies: [Observe]");
  });
  it("asks an adopter by spec to change its spec", () => {
    const message = alreadyManaged(apps, "appId", { held: false, holder, id: "x", named: "spec" });
    expect(message).toContain("To manage another app, change spec.appId");
  });
});

describe("coveredBy: an ID another resource holds beyond its own", () => {
  const orders = { group: "berth.dev", version: "v1alpha1", plural: "serverorders", kind: "ServerOrder" };
  const holds = (status: unknown) =>
    ((status as { growthOrders?: { id: string }[] } | undefined)?.growthOrders ?? []).map((g) => g.id);
  const holder = (status: Record<string, unknown>, annotations: Record<string, string> = {}): KubeObject => ({
    metadata: {
      namespace: "a",
      name: "batch",
      uid: "u-batch",
      creationTimestamp: "2026-01-01T00:00:00Z",
      annotations: {
        "berth.dev/external-id": "o1",
        "berth.dev/claimant": "a/batch",
        "berth.dev/claimed-at": "2026-01-01T00:00:01Z",
        ...annotations,
      },
    },
    status,
  });
  const adopter = (spec: Record<string, unknown>) => ({
    deps: undefined as never,
    type: orders,
    field: "orderId",
    object: { metadata: { namespace: "b", name: "adopter", uid: "u-adopter" } },
    resource: { metadata: {}, spec },
    holds,
  });
  const grown = holder({ orderId: "o1", growthOrders: [{ id: "g1" }] });
  const cases = [
    {
      name: "a growth order in the holder's status",
      target: adopter({ orderId: "g1" }),
      others: [grown],
      holder: "a/batch",
    },
    {
      name: "a growth order kept only in berth.dev/owned (restored without status)",
      target: adopter({ orderId: "g1" }),
      others: [
        holder({}, { "berth.dev/owned": JSON.stringify({ of: "a/batch", growthOrders: [{ id: "g1" }] }) }),
      ],
      holder: "a/batch",
    },
    { name: "an order no one holds", target: adopter({ orderId: "g2" }), others: [grown], holder: "none" },
    { name: "not an adopter by spec ID", target: adopter({}), others: [grown], holder: "none" },
    {
      name: "a holder whose own claim is a copy's (not its own)",
      target: adopter({ orderId: "g1" }),
      others: [holder({ growthOrders: [{ id: "g1" }] }, { "berth.dev/claimant": "a/original" })],
      holder: "none",
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const claim = coveredBy(c.target, String(c.target.resource.spec.orderId ?? "g1"), c.others);
      expect(claim === undefined ? "none" : `${claim.namespace}/${claim.name}`).toBe(c.holder);
    });
  }
});
