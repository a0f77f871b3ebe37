import { describe, expect, it } from "vitest";
import { createLogger } from "../telemetry/logger.ts";
import type { KubeObject } from "./object.ts";
import { Store } from "./store.ts";

const logger = createLogger({ level: "silent" });

function object(namespace: string, name: string, resourceVersion: string): KubeObject {
  return { metadata: { namespace, name, resourceVersion } };
}

function recording(store: Store): string[] {
  const seen: string[] = [];
  store.on({
    add: (o) => seen.push(`add ${o.metadata.name}@${o.metadata.resourceVersion}`),
    update: (old, o) =>
      seen.push(`update ${o.metadata.name}@${old.metadata.resourceVersion}->${o.metadata.resourceVersion}`),
    delete: (o) => seen.push(`delete ${o.metadata.name}`),
  });
  return seen;
}

describe("Store", () => {
  it("keys objects namespace/name and tells handlers what changed, with old and new on update", () => {
    const store = new Store(logger);
    const seen = recording(store);
    store.upsert(object("ns", "a", "1"));
    store.upsert(object("ns", "a", "1"));
    store.upsert(object("ns", "a", "2"));
    store.remove(object("ns", "a", "3"));
    store.remove(object("ns", "a", "3"));
    expect(seen).toEqual(["add a@1", "update a@1->2", "delete a"]);
    expect(store.get("ns/a")).toBeUndefined();
  });

  it("replace sweeps only the in-scope entries a relist no longer has", () => {
    const store = new Store(logger);
    store.upsert(object("one", "kept", "1"));
    store.upsert(object("one", "gone", "1"));
    store.upsert(object("two", "other-scope", "1"));
    const seen = recording(store);
    store.replace(
      [object("one", "kept", "2"), object("one", "new", "1")],
      (o) => o.metadata.namespace === "one",
    );
    expect(seen).toEqual(["update kept@1->2", "add new@1", "delete gone"]);
    expect(store.keys().sort()).toEqual(["one/kept", "one/new", "two/other-scope"]);
  });

  it("keeps notifying other handlers when one throws", () => {
    const store = new Store(logger);
    store.on({
      add: () => {
        throw new Error("handler bug");
      },
    });
    const seen = recording(store);
    store.upsert(object("ns", "a", "1"));
    expect(seen).toEqual(["add a@1"]);
  });
});
