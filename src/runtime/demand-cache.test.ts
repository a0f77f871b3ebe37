import { Registry } from "prom-client";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createLogger } from "../telemetry/logger.ts";
import { createWatchMetrics } from "../telemetry/metrics.ts";
import { DemandCache, type DemandCacheOptions } from "./demand-cache.ts";
import { KubeApiError } from "./errors.ts";
import type { KubeClient, Query } from "./kube-client.ts";
import type { KubeObject } from "./object.ts";
import type { StoreHandlers } from "./store.ts";

const secrets = { group: "", version: "v1", plural: "secrets", kind: "Secret" };
const finalizer = "example.dev/in-use";

interface Stored {
  metadata: { name: string; namespace: string; resourceVersion: string; finalizers?: string[] };
  data: Record<string, string>;
}

/**
 * An API server of Secrets as the cache sees it: GETs of one object (counted per key), lists and
 * watches whose Accept header and query are recorded, and watch events of metadata only.
 */
class FakeApi {
  version = 1;
  readonly objects = new Map<string, Stored>();
  readonly gets = new Map<string, number>();
  readonly lists: { query: Query | undefined; accept: string | undefined }[] = [];
  readonly watches: { query: Query; accept: string | undefined }[] = [];
  readonly refused = new Set<string>();
  /** The requests in the order they came: `list`, `get <key>`. */
  readonly order: string[] = [];
  /** While set, GETs wait for it. */
  paused: Promise<void> | undefined;
  #expiredBefore = 0;
  readonly #history: { version: number; line: string }[] = [];
  readonly #watchers = new Set<(line: string) => void>();

  put(key: string, data: Record<string, string>, finalizers?: string[]): void {
    const [namespace = "", name = ""] = key.split("/");
    const existing = this.objects.has(key);
    this.version += 1;
    const metadata = {
      name,
      namespace,
      resourceVersion: String(this.version),
      ...(finalizers === undefined ? {} : { finalizers }),
    };
    this.objects.set(key, { metadata, data });
    this.#publish(existing ? "MODIFIED" : "ADDED", metadata);
  }

  delete(key: string): void {
    const stored = this.objects.get(key);
    if (stored === undefined) return;
    this.objects.delete(key);
    this.version += 1;
    this.#publish("DELETED", { ...stored.metadata, resourceVersion: String(this.version) });
  }

  /** The watch's versions expire (etcd compacted): a watch from before gets 410 Gone. */
  expire(): void {
    this.#expiredBefore = this.version;
    for (const push of this.#watchers) push(JSON.stringify({ type: "ERROR", object: { code: 410 } }));
  }

  getsOf(key: string): number {
    return this.gets.get(key) ?? 0;
  }

  readonly client = {
    call: async (_method: string, path: string, options: { query?: Query; accept?: string } = {}) => {
      const [, namespace, name] =
        /^\/api\/v1(?:\/namespaces\/([^/]+))?\/secrets(?:\/(.+))?$/.exec(path) ?? [];
      if (name === undefined) {
        this.lists.push({ query: options.query, accept: options.accept });
        this.order.push("list");
        return { metadata: { resourceVersion: String(this.version) }, items: [] };
      }
      const key = `${namespace}/${name}`;
      this.gets.set(key, this.getsOf(key) + 1);
      this.order.push(`get ${key}`);
      await this.paused;
      if (this.refused.has(key)) throw new KubeApiError("forbidden", 403, `GET ${path}: forbidden`);
      const stored = this.objects.get(key);
      if (stored === undefined) throw new KubeApiError("not_found", 404, `GET ${path}: not found`);
      return structuredClone(stored);
    },
    stream: (path: string, query: Query, signal: AbortSignal, accept?: string) => {
      this.watches.push({ query, accept });
      return this.#stream(path, Number(query.resourceVersion), signal);
    },
  };

  async *#stream(path: string, since: number, signal: AbortSignal): AsyncGenerator<string> {
    if (since < this.#expiredBefore) {
      yield JSON.stringify({ type: "ERROR", object: { code: 410 } });
      return;
    }
    const scope = /\/namespaces\/([^/]+)\//.exec(path)?.[1];
    const inScope = (line: string) =>
      scope === undefined || (JSON.parse(line) as { object: Stored }).object.metadata.namespace === scope;
    const queue = this.#history.filter((e) => e.version > since && inScope(e.line)).map((e) => e.line);
    let wake = () => {};
    const push = (line: string) => {
      if (!line.includes('"ERROR"') && !inScope(line)) return;
      queue.push(line);
      wake();
    };
    this.#watchers.add(push);
    signal.addEventListener("abort", () => wake(), { once: true });
    try {
      while (!signal.aborted) {
        const line = queue.shift();
        if (line !== undefined) {
          yield line;
          if (line.includes('"ERROR"')) return;
          continue;
        }
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      }
    } finally {
      this.#watchers.delete(push);
    }
  }

  #publish(type: string, metadata: Stored["metadata"]): void {
    const line = JSON.stringify({ type, object: { kind: "PartialObjectMetadata", metadata } });
    this.#history.push({ version: this.version, line });
    for (const push of this.#watchers) push(line);
  }
}

const logger = createLogger({ level: "silent" });
const running: DemandCache[] = [];

afterEach(async () => {
  await Promise.all(running.splice(0).map((cache) => cache.stop()));
});

function cacheOf(api: FakeApi, options: Partial<DemandCacheOptions> = {}): DemandCache {
  const cache = new DemandCache({
    client: api.client as unknown as KubeClient,
    type: secrets,
    logger,
    metrics: createWatchMetrics(new Registry()),
    hold: (metadata) => metadata.finalizers?.includes(finalizer) ?? false,
    readBackoff: { initialMs: 10, maxMs: 10, factor: 1, jitter: 0, resetAfterMs: 1000 },
    ...options,
  });
  running.push(cache);
  return cache;
}

/** Every event the cache reports, on `on` (all) and on `changes()` (changes at the API server only). */
function recorder(cache: DemandCache) {
  const all: string[] = [];
  const changes: string[] = [];
  const handlers = (into: string[]): StoreHandlers<KubeObject> => ({
    add: (o) => into.push(`add ${o.metadata.name}`),
    update: (_, o) => into.push(`update ${o.metadata.name} ${o.metadata.resourceVersion}`),
    delete: (o) => into.push(`delete ${o.metadata.name}`),
  });
  cache.on(handlers(all));
  cache.changes().on(handlers(changes));
  return { all, changes };
}

const dataOf = (object: KubeObject | undefined) =>
  (object as { data?: Record<string, string> } | undefined)?.data;

describe("DemandCache", () => {
  it("reads only the objects asked for, and keeps nothing of the others", async () => {
    const api = new FakeApi();
    api.put("team/credentials", { apiKey: "a" });
    for (let i = 0; i < 50; i++) api.put(`team/unrelated-${i}`, { blob: "x".repeat(100) });
    const cache = cacheOf(api);
    cache.demand("team/credentials");
    cache.start();
    await cache.waitForSync();

    expect(dataOf(cache.get("team/credentials"))).toEqual({ apiKey: "a" });
    expect(cache.get("team/unrelated-0")).toBeUndefined();
    expect(cache.list().map((o) => o.metadata.name)).toEqual(["credentials"]);
    expect(cache.size).toBe(1);
    // Changes of the others pass by: no read, nothing kept.
    api.put("team/unrelated-1", { blob: "y" });
    api.delete("team/unrelated-2");
    api.put("team/credentials", { apiKey: "b" });
    await vi.waitFor(() => expect(dataOf(cache.get("team/credentials"))).toEqual({ apiKey: "b" }));
    expect([...api.gets.keys()]).toEqual(["team/credentials"]);
    expect(cache.size).toBe(1);
  });

  it("never lists what exists: one list of one item's metadata for the version, then a metadata-only watch", async () => {
    const api = new FakeApi();
    api.put("team/a", { k: "v" });
    const cache = cacheOf(api);
    cache.start();
    await cache.waitForSync();
    await vi.waitFor(() => expect(api.watches).toHaveLength(1));

    expect(api.lists).toEqual([
      {
        query: { limit: 1, labelSelector: undefined },
        accept: expect.stringContaining("as=PartialObjectMetadataList"),
      },
    ]);
    expect(api.watches[0]?.accept).toContain("as=PartialObjectMetadata;");
    expect(api.watches[0]?.query.resourceVersion).toBe(String(api.version));
    expect(api.gets.size).toBe(0);
  });

  it("reports a first read to its primaries only, and a change, deletion and re-creation to dependants too", async () => {
    const api = new FakeApi();
    api.put("team/env", { token: "1" });
    const cache = cacheOf(api);
    const seen = recorder(cache);
    cache.demand("team/env");
    cache.start();
    await cache.waitForSync();
    expect(seen.all).toEqual(["add env"]);
    expect(seen.changes).toEqual([]);

    api.put("team/env", { token: "2" });
    await vi.waitFor(() => expect(seen.changes).toEqual([`update env ${api.version}`]));
    api.delete("team/env");
    await vi.waitFor(() => expect(seen.changes).toHaveLength(2));
    expect(cache.get("team/env")).toBeUndefined();
    api.put("team/env", { token: "3" });
    await vi.waitFor(() => expect(seen.changes).toHaveLength(3));
    expect(seen.changes).toEqual([`update env 3`, "delete env", "add env"]);
    expect(seen.all).toEqual(["add env", ...seen.changes]);
    expect(dataOf(cache.get("team/env"))).toEqual({ token: "3" });
  });

  it("knows a missing object is missing, and reports its creation as a change", async () => {
    const api = new FakeApi();
    const cache = cacheOf(api);
    const seen = recorder(cache);
    cache.start();
    await cache.settle(["team/later"]);
    expect(cache.get("team/later")).toBeUndefined();
    expect(seen.all).toEqual([]);

    api.put("team/later", { k: "v" });
    await vi.waitFor(() => expect(seen.changes).toEqual(["add later"]));
    expect(api.getsOf("team/later")).toBe(2);
  });

  it("lets go of what no one asks for any more after releaseAfterMs, but keeps what its metadata holds", async () => {
    const api = new FakeApi();
    api.put("team/old", { k: "v" });
    api.put("team/held", { k: "v" }, [finalizer]);
    const cache = cacheOf(api, { releaseAfterMs: 60_000 });
    const seen = recorder(cache);
    cache.demand("team/old");
    cache.demand("team/held");
    cache.start();
    await cache.waitForSync();
    cache.release("team/old");
    cache.release("team/held");

    cache.releaseIdle(Date.now() + 30_000);
    expect(cache.get("team/old")).toBeDefined();
    cache.releaseIdle(Date.now() + 60_000);
    expect(cache.get("team/old")).toBeUndefined();
    expect(cache.get("team/held")).toBeDefined();
    expect(seen.all).toContain("delete old");
    // Letting go is no change at the API server.
    expect(seen.changes).toEqual([]);
    // Asked for again: read again.
    await cache.settle(["team/old"]);
    expect(api.getsOf("team/old")).toBe(2);
  });

  it("reads an object nobody asked for once a change shows it carrying the held finalizer, and lets it go when it no longer does", async () => {
    const api = new FakeApi();
    api.put("team/stale", { k: "v" });
    const cache = cacheOf(api, { releaseAfterMs: 1000 });
    const seen = recorder(cache);
    cache.start();
    await cache.waitForSync();
    expect(cache.size).toBe(0);

    api.put("team/stale", { k: "v" }, [finalizer]);
    await vi.waitFor(() => expect(seen.all).toEqual(["add stale"]));
    api.put("team/stale", { k: "v" }, []);
    await vi.waitFor(() => expect(seen.all).toHaveLength(2));
    cache.releaseIdle(Date.now() + 1000);
    expect(cache.size).toBe(0);
  });

  it("settle reads a key nobody demanded, and rejects (naming the key, never a value) when it can't be read", async () => {
    const api = new FakeApi();
    api.put("team/ok", { apiKey: "s3cret" });
    api.put("team/forbidden", { apiKey: "s3cret" });
    api.refused.add("team/forbidden");
    const cache = cacheOf(api);
    cache.start();
    await cache.settle(["team/ok"]);
    expect(dataOf(cache.get("team/ok"))).toEqual({ apiKey: "s3cret" });

    const refused = await cache.settle(["team/ok", "team/forbidden"]).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: "object_unreadable" });
    expect(String((refused as Error).message)).toContain("team/forbidden");
    expect(String((refused as Error).message)).not.toContain("s3cret");
    // Allowed again: the next settle reads it.
    api.refused.clear();
    await cache.settle(["team/forbidden"]);
    expect(cache.get("team/forbidden")).toBeDefined();
  });

  it("retries a demanded read that failed, after backoff", async () => {
    const api = new FakeApi();
    api.put("team/key", { k: "v" });
    api.refused.add("team/key");
    const cache = cacheOf(api);
    cache.demand("team/key");
    cache.start();
    await cache.waitForSync();
    expect(cache.get("team/key")).toBeUndefined();
    api.refused.clear();
    await vi.waitFor(() => expect(cache.get("team/key")).toBeDefined());
  });

  it("reads again when a change arrives while a read is under way", async () => {
    const api = new FakeApi();
    api.put("team/key", { v: "1" });
    const cache = cacheOf(api);
    cache.start();
    await cache.waitForSync();
    let resume = () => {};
    api.paused = new Promise((resolve) => {
      resume = resolve;
    });
    const settled = cache.settle(["team/key"]);
    await vi.waitFor(() => expect(api.getsOf("team/key")).toBe(1));
    // The GET was sent before this change (its answer is older than the event).
    const older = structuredClone(api.objects.get("team/key"));
    api.put("team/key", { v: "2" });
    api.objects.set("team/key", older as Stored);
    api.paused = undefined;
    resume();
    await settled;
    await vi.waitFor(() => expect(api.getsOf("team/key")).toBe(2));
  });

  it("waits for the watch's starting version before any read, so no change falls between them", async () => {
    const api = new FakeApi();
    api.put("team/key", { v: "1" });
    const cache = cacheOf(api);
    cache.demand("team/key");
    await new Promise((resolve) => setTimeout(resolve, 20));
    cache.start();
    await cache.waitForSync();
    expect(api.order).toEqual(["list", "get team/key"]);
  });

  it("after its version expired (410), starts over from the present and reads again what it holds", async () => {
    const api = new FakeApi();
    api.put("team/key", { v: "1" });
    const cache = cacheOf(api);
    const seen = recorder(cache);
    cache.demand("team/key");
    cache.demand("team/missing");
    cache.start();
    await cache.waitForSync();
    await vi.waitFor(() => expect(api.watches).toHaveLength(1));

    // A change the watch never reports: its history is gone.
    api.objects.set("team/key", {
      metadata: { name: "key", namespace: "team", resourceVersion: "99" },
      data: { v: "2" },
    });
    api.expire();
    await vi.waitFor(() => expect(seen.changes).toEqual(["update key 99"]));
    expect(api.lists).toHaveLength(2);
    expect(api.getsOf("team/missing")).toBe(2);
  });

  it("watches each namespace it is given, and reads there only", async () => {
    const api = new FakeApi();
    api.put("a/key", { v: "1" });
    api.put("b/key", { v: "1" });
    const cache = cacheOf(api, { namespaces: ["a", "b"] });
    cache.demand("a/key");
    cache.start();
    await cache.waitForSync();
    await vi.waitFor(() => expect(api.watches).toHaveLength(2));
    api.put("b/key", { v: "2" });
    api.put("a/key", { v: "2" });
    await vi.waitFor(() => expect(dataOf(cache.get("a/key"))).toEqual({ v: "2" }));
    expect(api.getsOf("b/key")).toBe(0);
  });
});
