import { Registry } from "prom-client";
import { describe, expect, it, vi } from "vitest";
import { createLogger } from "../telemetry/logger.ts";
import { createWatchMetrics } from "../telemetry/metrics.ts";
import type { KubeClient, Query } from "./kube-client.ts";
import type { KubeObject } from "./object.ts";
import { Reflector, stripForCache } from "./reflector.ts";
import { Store } from "./store.ts";

const lastApplied = "kubectl.kubernetes.io/last-applied-configuration";

function app(metadata: Record<string, unknown>): KubeObject {
  return JSON.parse(
    JSON.stringify({ metadata: { name: "web", namespace: "team", ...metadata }, spec: { a: 1 } }),
  );
}

describe("stripForCache", () => {
  it("drops managedFields and keeps everything else", () => {
    const object = stripForCache(
      app({ uid: "u", managedFields: [{ manager: "kubectl" }], finalizers: ["f"] }),
    );
    expect(object.metadata).toEqual({ name: "web", namespace: "team", uid: "u", finalizers: ["f"] });
    expect(object).toMatchObject({ spec: { a: 1 } });
  });

  it("drops kubectl's last-applied annotation, and the annotations when nothing else is left", () => {
    const both = stripForCache(app({ annotations: { [lastApplied]: "{…}", "berth.dev/x": "1" } }));
    expect(both.metadata.annotations).toEqual({ "berth.dev/x": "1" });
    const only = stripForCache(app({ annotations: { [lastApplied]: "{…}" } }));
    expect(only.metadata).not.toHaveProperty("annotations");
  });

  it("keeps other annotations when there is no last-applied one", () => {
    const object = stripForCache(app({ managedFields: [], annotations: { "berth.dev/x": "1" } }));
    expect(object.metadata).toEqual({ name: "web", namespace: "team", annotations: { "berth.dev/x": "1" } });
  });
});

describe("Reflector list", () => {
  const widgets = { group: "example.dev", version: "v1", plural: "widgets", kind: "Widget" };
  const item = (name: string) => ({ metadata: { name, namespace: "ns", resourceVersion: "7" } });

  /** A client serving `pages` of a list (the next one only once `release` is called), then an idle watch. */
  function pagedClient(pages: Array<Array<ReturnType<typeof item>>>) {
    const queries: Query[] = [];
    let release = () => {};
    const client = {
      async call(_method: string, _path: string, options: { query: Query }) {
        queries.push(options.query);
        const index = queries.length - 1;
        if (index > 0) await new Promise<void>((resolve) => (release = resolve));
        const last = index === pages.length - 1;
        return {
          metadata: { resourceVersion: "7", ...(last ? {} : { continue: `page-${index + 1}` }) },
          items: pages[index],
        };
      },
      async *stream(_path: string, _query: Query, signal: AbortSignal) {
        if (!signal.aborted) await new Promise((resolve) => signal.addEventListener("abort", resolve));
        yield* [];
      },
    };
    return { client: client as unknown as KubeClient, queries, release: () => release() };
  }

  it("pages with limit/continue, puts each page in the store as it arrives, then sweeps the unlisted", async () => {
    const logger = createLogger({ level: "silent" });
    const store = new Store(logger);
    store.upsert({ metadata: { name: "gone", namespace: "ns", resourceVersion: "1" } });
    const { client, queries, release } = pagedClient([[item("a"), item("b")], [item("c")]]);
    const reflector = new Reflector({
      client,
      type: widgets,
      store,
      logger,
      metrics: createWatchMetrics(new Registry()),
      pageSize: 2,
    });
    reflector.start();
    await vi.waitFor(() => expect(queries).toHaveLength(2));
    expect(store.keys().sort()).toEqual(["ns/a", "ns/b", "ns/gone"]);
    expect(reflector.hasSynced()).toBe(false);
    release();
    // Stopped right after the sync, before the watch began: the stop still ends it.
    await reflector.waitForSync();
    expect(store.keys().sort()).toEqual(["ns/a", "ns/b", "ns/c"]);
    expect(queries.map((q) => [q.limit, q.continue])).toEqual([
      [2, undefined],
      [2, "page-1"],
    ]);
    await reflector.stop();
  });
});
