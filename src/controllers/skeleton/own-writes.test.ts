import { describe, expect, it } from "vitest";
import { type KubeObject, Store } from "../../runtime/index.ts";
import { createLogger } from "../../telemetry/logger.ts";
import { OwnWrites } from "./own-writes.ts";

const at = (resourceVersion: string): KubeObject => ({
  metadata: { name: "a", namespace: "n", resourceVersion },
});

describe("OwnWrites", () => {
  it("answers with the controller's own newer write while the store shows a version it replaced", () => {
    const writes = new OwnWrites();
    const v1 = at("1");
    const v2 = at("2");
    const v3 = at("3");
    writes.record("n/a", v1, v2);
    writes.record("n/a", v2, v3);
    expect(writes.freshest("n/a", at("1"))).toBe(v3);
    expect(writes.freshest("n/a", at("2"))).toBe(v3);
  });

  it("answers with the store once it caught up or moved past (someone else wrote)", () => {
    const writes = new OwnWrites();
    writes.record("n/a", at("1"), at("2"));
    const newer = at("4");
    expect(writes.freshest("n/a", newer)).toBe(newer);
    const stale = at("1");
    expect(writes.freshest("n/a", stale)).toBe(stale);
  });

  it("lets the store's copy take over once it shows the write, so an object is held once", () => {
    const store = new Store(createLogger({ level: "silent" }));
    const writes = new OwnWrites(store);
    store.upsert(at("1"));
    const written = at("2");
    writes.record("n/a", at("1"), written);
    expect(writes.freshest("n/a", at("1"))).toBe(written);
    const watched = at("2");
    store.upsert(watched);
    // Even a reconcile that still holds the older copy gets no second copy kept for it.
    expect(writes.freshest("n/a", at("1"))).toEqual(at("1"));
  });

  it("holds no copy of a write whose watch event came before its answer", () => {
    const store = new Store(createLogger({ level: "silent" }));
    const writes = new OwnWrites(store);
    store.upsert(at("1"));
    const watched = at("2");
    store.upsert(watched);
    expect(writes.record("n/a", at("1"), at("2"))).toBe(true);
    // No update event follows (the object is idle): nothing was kept for it to clear.
    expect(writes.freshest("n/a", at("1"))).toEqual(at("1"));
  });
});
