import { describe, expect, it } from "vitest";
import type { HostingClient, Page, App as ServiceApp } from "../../hosting/index.ts";
import { appDigest, DriftListings } from "./drift-listing.ts";

const interval = 20_000;
const projectId = "p1";
const appOf = (id: string, image = "nginx:1.27"): ServiceApp =>
  ({
    id,
    name: `app-${id}`,
    projectId,
    config: { image, ports: [], instances: { min: 1, max: 1 }, env: [], volumes: [] },
  }) as unknown as ServiceApp;

/** A client whose project holds `ids`, listed two apps a page; counts the pages asked for. */
function fakeClient(ids: string[], fail = false) {
  const calls: Array<string | undefined> = [];
  const client = {
    credentialId: "cred",
    awaitShared: <T>(answer: Promise<T>) => answer,
    listApps: async (_project: string, query: { cursor?: string }): Promise<Page<ServiceApp>> => {
      calls.push(query.cursor);
      if (fail) throw new Error("listing failed");
      const start = Number(query.cursor ?? 0);
      const next = start + 2 < ids.length ? String(start + 2) : null;
      return { items: ids.slice(start, start + 2).map((id) => appOf(id)), nextCursor: next };
    },
  };
  return { client: client as unknown as HostingClient, calls };
}

function listingsAt(clock: { now: number }) {
  return new DriftListings(
    () => clock.now,
    () => interval,
  );
}

describe("DriftListings", () => {
  it("reads a project of fewer than three Apps app by app: no listing", async () => {
    const clock = { now: 100_000 };
    const listings = listingsAt(clock);
    const { client, calls } = fakeClient(["a", "b"]);
    expect(await listings.read(client, projectId, "a", clock.now)).toBeUndefined();
    expect(await listings.read(client, projectId, "b", clock.now)).toBeUndefined();
    expect(calls).toEqual([]);
  });

  it("answers the checks of a drift interval from one listing, all pages followed", async () => {
    const clock = { now: 100_000 };
    const listings = listingsAt(clock);
    const { client, calls } = fakeClient(["a", "b", "c", "d", "e"]);
    for (const id of ["a", "b"]) await listings.read(client, projectId, id, clock.now);
    const first = await listings.read(client, projectId, "c", clock.now);
    expect(first).toBe(appDigest(appOf("c")));
    expect(calls).toEqual([undefined, "2", "4"]);
    clock.now += interval / 2;
    expect(await listings.read(client, projectId, "e", clock.now)).toBe(appDigest(appOf("e")));
    expect(await listings.read(client, projectId, "d", clock.now)).toBe(appDigest(appOf("d")));
    expect(calls).toHaveLength(3);
  });

  it("lists again for a check due more than an interval after the listing, or after the App's own previous check", async () => {
    const clock = { now: 100_000 };
    const listings = listingsAt(clock);
    const { client, calls } = fakeClient(["a", "b", "c"]);
    for (const id of ["a", "b", "c"]) await listings.read(client, projectId, id, clock.now);
    expect(calls).toHaveLength(2);
    // c was checked with the listing just made: its next check takes a newer one.
    clock.now += 1000;
    await listings.read(client, projectId, "c", clock.now);
    expect(calls).toHaveLength(4);
    clock.now += interval + 1;
    await listings.read(client, projectId, "a", clock.now);
    expect(calls).toHaveLength(6);
  });

  it("a failed listing leaves the checks waiting on it to read their app themselves", async () => {
    const clock = { now: 100_000 };
    const listings = listingsAt(clock);
    const { client } = fakeClient(["a", "b", "c"], true);
    await listings.read(client, projectId, "a", clock.now);
    await listings.read(client, projectId, "b", clock.now);
    const started = listings.read(client, projectId, "c", clock.now);
    const waiting = listings.read(client, projectId, "c2", clock.now);
    await expect(started).rejects.toThrow("listing failed");
    expect(await waiting).toBeUndefined();
  });

  it("a listed app counts as checked only when it shows what was last known", () => {
    expect(appDigest(appOf("a"))).toBe(appDigest(appOf("a")));
    expect(appDigest(appOf("a", "nginx:1.28"))).not.toBe(appDigest(appOf("a")));
    const withMetadata = Object.assign(appOf("a"), { createdAt: "2030-01-01T00:00:00Z" });
    expect(appDigest(withMetadata)).toBe(appDigest(appOf("a")));
  });
});
