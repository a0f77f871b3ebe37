import { describe, expect, it } from "vitest";
import type { Informer, KubeObject } from "../runtime/index.ts";
import { Outcome } from "../runtime/index.ts";
import { Shard } from "./shard.ts";

const app = (name: string, shard?: string): KubeObject => ({
  apiVersion: "berth.dev/v1alpha1",
  kind: "App",
  metadata: { name, namespace: "ns", ...(shard ? { labels: { "berth.dev/shard": shard } } : {}) },
});

/** Just the informer surface Shard uses, over a fixed list. */
function informerOf(objects: KubeObject[]): Informer {
  const byKey = new Map(objects.map((o) => [`ns/${o.metadata.name}`, o]));
  return { list: () => objects, get: (key: string) => byKey.get(key) } as unknown as Informer;
}

describe("Shard", () => {
  it.each([
    ["", "berth-operator"],
    ["!berth.dev/shard", "berth-operator"],
    ["berth.dev/shard in (shard1)", "berth-operator-berth-dev-shard-in-shard1"],
    ["berth.dev/shard=shard2", "berth-operator-berth-dev-shard-shard2"],
    ["berth.dev/shard!=shard2", "berth-operator-berth-dev-shard-not-shard2"],
  ])("%j leads through the Lease %s", (selector, lease) => {
    expect(new Shard(selector).leaseName).toBe(lease);
  });

  const objects = [app("a"), app("b", "shard1"), app("c", "shard2")];
  const informer = informerOf(objects);

  it("lists, maps and reconciles only its own resources", async () => {
    const shard = new Shard("berth.dev/shard in (shard1)");
    expect(
      shard
        .source(informer)
        .list()
        .map((o) => o.metadata.name),
    ).toEqual(["b"]);
    expect(shard.keys(() => ["ns/a", "ns/b", "ns/c", "ns/gone"], informer)(app("x"))).toEqual(["ns/b"]);
    const reconciled: string[] = [];
    const reconcile = shard.reconciler(async ({ key }) => {
      reconciled.push(key);
      return Outcome.done();
    }, informer);
    for (const key of ["ns/a", "ns/b", "ns/gone"]) {
      await reconcile({ key, namespace: "ns", name: key.slice(3) }, {} as never);
    }
    // A deleted object still reaches the reconciler, which forgets it.
    expect(reconciled).toEqual(["ns/b", "ns/gone"]);
  });

  it("the default shard takes what no shard label claims; no selector takes everything", () => {
    expect(
      new Shard("!berth.dev/shard")
        .source(informer)
        .list()
        .map((o) => o.metadata.name),
    ).toEqual(["a"]);
    expect(new Shard("").source(informer)).toBe(informer);
  });
});
