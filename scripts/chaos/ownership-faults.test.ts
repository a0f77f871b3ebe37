import { describe, expect, it } from "vitest";
import type { Kind, Manifest, Resource } from "./cluster.ts";
import { project } from "./invariant-fixtures.ts";
import { Ledger } from "./ledger.ts";
import { restore } from "./ownership-faults.ts";

/** A cluster holding one Project that berth annotates once more while it is being deleted, then lets go. */
function fakeCluster() {
  const calls: string[] = [];
  let reads = 0;
  let deleted = false;
  const applied: { metadata: Manifest["metadata"]; spec: Record<string, unknown> }[] = [];
  const reading = (owned: string): Resource => ({
    metadata: { name: "p-0", namespace: "ns", uid: "u1", annotations: { "berth.dev/owned": owned } },
    spec: { displayName: "ns.p-0", deletionPolicy: deleted ? "Orphan" : "Delete" },
  });
  return {
    calls,
    applied,
    cluster: {
      get: async (_kind: Kind, _ns: string, _name: string) => {
        reads++;
        if (deleted && reads > 3) return undefined;
        return reading(deleted ? "after-the-order" : "before");
      },
      apply: async (_kind: Kind, metadata: Manifest["metadata"], spec: Record<string, unknown>) => {
        applied.push({ metadata, spec });
      },
      delete: async () => {
        calls.push("delete");
        deleted = true;
      },
      patchSpec: async (_kind: Kind, _ns: string, _name: string, patch: Record<string, unknown>) => {
        calls.push(`patch ${JSON.stringify(patch)}`);
      },
    },
  };
}

describe("a restore", () => {
  it("sets Orphan, deletes, and re-creates from the last reading before it went, with its own deletionPolicy", async () => {
    const p = project("p-0");
    const ledger = new Ledger({ namespaces: [], resources: [p] });
    const tracked = ledger.get(p.key);
    if (tracked === undefined) throw new Error("not in the ledger");
    tracked.created = true;
    const world = fakeCluster();
    await restore(
      { cluster: world.cluster, ledger },
      { at: 0, type: "restore", target: p.key, after: undefined },
    );
    expect(world.calls).toEqual(['patch {"deletionPolicy":"Orphan"}', "delete"]);
    expect(world.applied).toEqual([
      {
        metadata: { name: "p-0", namespace: "ns", annotations: { "berth.dev/owned": "after-the-order" } },
        spec: { displayName: "ns.p-0", deletionPolicy: "Delete" },
      },
    ]);
    expect(tracked.restoringSince).toBeUndefined();
  });
});
