import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { createLogger } from "../telemetry/logger.ts";
import { createControllerMetrics, createWorkqueueMetrics } from "../telemetry/metrics.ts";
import {
  Controller,
  type ControllerOptions,
  type ReconcileContext,
  type Reconciler,
  type Source,
} from "./controller.ts";
import type { KubeObject } from "./object.ts";
import { Outcome } from "./outcome.ts";
import { Store } from "./store.ts";

const logger = createLogger({ level: "silent" });

function source(store: Store): Source {
  return { on: (h) => store.on(h), list: () => store.list(), waitForSync: async () => {} };
}

function object(name: string, resourceVersion: string, extra: Partial<KubeObject> = {}): KubeObject {
  // Settled at its generation, unless `extra` says otherwise.
  return {
    metadata: { name, namespace: "ns", resourceVersion, generation: 1 },
    status: { observedGeneration: 1 },
    ...extra,
  };
}

/** `name` at a new resourceVersion, with its metadata changed by `meta`. */
function changed(name: string, resourceVersion: string, meta: Partial<KubeObject["metadata"]>, extra = {}) {
  const base = object(name, resourceVersion, extra);
  return { ...base, metadata: { ...base.metadata, ...meta } };
}

/** A reconciler recording each run; the run numbered `blockAt` (1-based) waits for the gate. */
function recording(blockAt: number) {
  const runs: string[] = [];
  const blocked = gate();
  const reconcile: Reconciler = async ({ key }) => {
    runs.push(key);
    if (runs.length === blockAt) await blocked.opened;
    return Outcome.done();
  };
  return { runs, release: blocked.open, reconcile };
}

function controller(
  store: Store,
  reconcile: Reconciler,
  concurrency = 4,
  options: Partial<ControllerOptions> = {},
) {
  const registry = new Registry();
  const metrics = {
    controller: createControllerMetrics(registry),
    workqueue: createWorkqueueMetrics(registry),
  };
  return {
    registry,
    controller: new Controller({
      name: "widgets",
      informer: source(store),
      reconcile,
      logger,
      metrics,
      concurrency,
      ...options,
    }),
  };
}

function gate() {
  let open = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
}

async function until(condition: () => boolean, timeoutMs = 2000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

async function activeWorkers(registry: Registry): Promise<number | undefined> {
  const gauge = await registry.getSingleMetric("controller_runtime_active_workers")?.get();
  return gauge?.values[0]?.value;
}

describe("Controller", () => {
  it("reconciles existing and new objects, never one key twice at once, and again after a change mid-reconcile", async () => {
    const store = new Store(logger);
    store.upsert(object("a", "1"));
    const runs: string[] = [];
    const inFlight = new Set<string>();
    let overlapped = false;
    const firstRunOfA = gate();
    const { controller: c } = controller(store, async ({ key }) => {
      if (inFlight.has(key)) overlapped = true;
      inFlight.add(key);
      runs.push(key);
      if (key === "ns/a" && runs.filter((k) => k === "ns/a").length === 1) await firstRunOfA.opened;
      inFlight.delete(key);
      return Outcome.done();
    });
    await c.start();
    await until(() => runs.includes("ns/a"));
    store.upsert(object("a", "2"));
    store.upsert(object("a", "3"));
    store.upsert(object("b", "1"));
    await until(() => runs.includes("ns/b"));
    expect(runs.filter((k) => k === "ns/a")).toHaveLength(1);
    firstRunOfA.open();
    await until(() => runs.filter((k) => k === "ns/a").length === 2);
    await c.stop();
    expect(overlapped).toBe(false);
    expect(runs.filter((k) => k === "ns/a")).toHaveLength(2);
  });

  it("catches a throw inside reconcile as an error: retried with backoff, other keys unaffected", async () => {
    const store = new Store(logger);
    store.upsert(object("a", "1"));
    store.upsert(object("b", "1"));
    const runs: string[] = [];
    const { controller: c, registry } = controller(store, async ({ key }) => {
      runs.push(key);
      if (key === "ns/a" && runs.filter((k) => k === "ns/a").length === 1) throw new TypeError("bug");
      return Outcome.done();
    });
    await c.start();
    await until(() => runs.filter((k) => k === "ns/a").length === 2);
    await c.stop();
    expect(runs.filter((k) => k === "ns/b")).toHaveLength(1);
    const errors = await registry.getSingleMetric("controller_runtime_reconcile_errors_total")?.get();
    expect(errors?.values[0]?.value).toBe(1);
  });

  it("enqueues the primaries a related object maps to when it changes", async () => {
    const primaries = new Store(logger);
    const secrets = new Store(logger);
    primaries.upsert(object("app1", "1", { spec: { credentialsRef: "creds" } }));
    primaries.upsert(object("app2", "1", { spec: { credentialsRef: "other" } }));
    const runs: string[] = [];
    const { controller: c } = controller(primaries, async ({ key }) => {
      runs.push(key);
      return Outcome.done();
    });
    c.watch(source(secrets), (secret) =>
      primaries
        .list()
        .filter((p) => (p.spec as { credentialsRef: string }).credentialsRef === secret.metadata.name)
        .map((p) => `${p.metadata.namespace}/${p.metadata.name}`),
    );
    await c.start();
    await until(() => runs.length === 2);
    secrets.upsert(object("creds", "5"));
    await until(() => runs.length === 3);
    await c.stop();
    expect(runs.at(-1)).toBe("ns/app1");
  });

  it("is not woken by its own writes, whether their watch events come before or after the answer", async () => {
    const store = new Store(logger);
    store.upsert(object("late", "1"));
    store.upsert(object("early", "1"));
    store.upsert(object("after", "1"));
    store.upsert(object("sentinel", "1"));
    const runs: string[] = [];
    const after = gate();
    const { controller: c } = controller(
      store,
      async ({ key, name }, { wrote }) => {
        runs.push(key);
        if (runs.filter((k) => k === key).length > 1 || name === "sentinel") return Outcome.done();
        const written = object(name, "2", { status: { ok: true } });
        // The watch event and the write's answer race: "early" sees its event first.
        if (name === "early") store.upsert(written);
        wrote(written);
        if (name === "late") store.upsert(written);
        // …and "after" sees it once the reconcile is over.
        if (name === "after")
          setTimeout(() => {
            store.upsert(written);
            after.open();
          }, 10);
        return Outcome.done();
      },
      1,
    );
    await c.start();
    await until(() => runs.length === 4);
    await after.opened;
    // Someone else's write of the same shape, after every own write's event: one worker takes keys
    // in order, so a key woken by its own event would run before the sentinel's second run.
    store.upsert(object("sentinel", "2", { status: { ok: true } }));
    await until(() => runs.filter((k) => k === "ns/sentinel").length === 2);
    expect(runs.filter((k) => k !== "ns/sentinel").sort()).toEqual(["ns/after", "ns/early", "ns/late"]);
    // Someone else's change is news again.
    store.upsert(object("late", "3"));
    await until(() => runs.filter((k) => k === "ns/late").length === 2);
    await c.stop();
  });

  it("runs again when someone else changed the object while it was reconciled", async () => {
    const store = new Store(logger);
    store.upsert(object("a", "1"));
    let runs = 0;
    const { controller: c } = controller(store, async (_, { wrote }) => {
      runs += 1;
      if (runs === 1) {
        store.upsert(object("a", "2", { spec: { changed: true } }));
        const written = object("a", "3");
        store.upsert(written);
        wrote(written);
      }
      return Outcome.done();
    });
    await c.start();
    await until(() => runs === 2);
    await c.stop();
  });

  it("on stop, finishes the reconciles in flight and starts no new ones", async () => {
    const store = new Store(logger);
    store.upsert(object("a", "1"));
    const release = gate();
    let finished = false;
    const runs: string[] = [];
    const { controller: c } = controller(
      store,
      async ({ key }) => {
        runs.push(key);
        await release.opened;
        finished = true;
        return Outcome.done();
      },
      1,
    );
    await c.start();
    await until(() => runs.length === 1);
    store.upsert(object("b", "1"));
    const stopped = c.stop();
    release.open();
    await stopped;
    expect(finished).toBe(true);
    expect(runs).toEqual(["ns/a"]);
  });

  it("on abort, signals the reconciles in flight", async () => {
    const store = new Store(logger);
    store.upsert(object("a", "1"));
    let context: ReconcileContext | undefined;
    const { controller: c } = controller(store, async (_, ctx) => {
      context = ctx;
      await new Promise((resolve) => ctx.signal.addEventListener("abort", resolve));
      return Outcome.done();
    });
    await c.start();
    await until(() => context !== undefined);
    c.abort();
    expect(context?.signal.aborted).toBe(true);
    await c.stop();
  });

  it("hands out changes made after the sync before the initial list's keys", async () => {
    const store = new Store(logger);
    for (const name of ["a", "b", "c"]) store.upsert(object(name, "1"));
    const { runs, release, reconcile } = recording(1);
    const { controller: c } = controller(store, reconcile, 1);
    await c.start();
    await until(() => runs.length === 1);
    store.upsert(changed("c", "2", {}, { status: { seen: true } }));
    store.upsert(object("new", "1"));
    store.upsert(changed("b", "2", { generation: 2 }));
    release();
    await until(() => runs.length === 4);
    await c.stop();
    expect(runs).toEqual(["ns/a", "ns/new", "ns/b", "ns/c"]);
  });

  it("puts deletions, new objects and annotation requests before status written by others", async () => {
    const store = new Store(logger);
    for (const name of ["a", "s", "d", "r"]) store.upsert(object(name, "1"));
    const { runs, release, reconcile } = recording(5);
    const { controller: c } = controller(store, reconcile, 1);
    await c.start();
    await until(() => runs.length === 4);
    store.upsert(changed("a", "2", { generation: 2 }));
    await until(() => runs.length === 5);
    store.upsert(changed("s", "2", {}, { status: { by: "someone else" } }));
    store.remove(object("d", "1"));
    store.upsert(object("n", "1"));
    store.upsert(changed("r", "2", { annotations: { "berth.dev/reconcile-requested-at": "now" } }));
    release();
    await until(() => runs.length === 9);
    await c.stop();
    expect(runs.slice(5)).toEqual(["ns/d", "ns/n", "ns/r", "ns/s"]);
  });

  it("hands out the primaries a related change wakes before the initial list's keys", async () => {
    const primaries = new Store(logger);
    const secrets = new Store(logger);
    for (const name of ["a", "p1", "p2"]) primaries.upsert(object(name, "1"));
    const { runs, release, reconcile } = recording(1);
    const { controller: c } = controller(primaries, reconcile, 1);
    c.watch(source(secrets), () => ["ns/p2"]);
    await c.start();
    await until(() => runs.length === 1);
    secrets.upsert(object("creds", "1"));
    release();
    await until(() => runs.length === 3);
    await c.stop();
    expect(runs).toEqual(["ns/a", "ns/p2", "ns/p1"]);
  });

  it("gives the worker back when a reconcile defers, and runs it again after the delay", async () => {
    const store = new Store(logger);
    store.upsert(object("x", "1"));
    store.upsert(object("y", "1"));
    const runs: Array<[string, number]> = [];
    const { controller: c, registry } = controller(
      store,
      async ({ key }) => {
        runs.push([key, Date.now()]);
        if (key === "ns/x" && runs.length === 1)
          throw Object.assign(new Error("no budget"), { code: "deferred", deferMs: 200 });
        return Outcome.done();
      },
      1,
    );
    await c.start();
    await until(() => runs.length === 3);
    await c.stop();
    expect(runs.map(([key]) => key)).toEqual(["ns/x", "ns/y", "ns/x"]);
    const [[, firstAt], , [, againAt]] = runs as [[string, number], [string, number], [string, number]];
    expect(againAt - firstAt).toBeGreaterThanOrEqual(190);
    const errors = await registry.getSingleMetric("controller_runtime_reconcile_errors_total")?.get();
    expect(errors?.values[0]?.value ?? 0).toBe(0);
  });

  it("hands out an initial-list object whose generation is not observed yet before the settled ones", async () => {
    const store = new Store(logger);
    store.upsert(object("s1", "1"));
    store.upsert(object("s2", "1"));
    store.upsert(changed("pending", "1", { generation: 2 }));
    const { runs, release, reconcile } = recording(0);
    release();
    const { controller: c } = controller(store, reconcile, 1);
    await c.start();
    await until(() => runs.length === 3);
    await c.stop();
    expect(runs).toEqual(["ns/pending", "ns/s1", "ns/s2"]);
  });

  it("hands out a spec change that arrives while the initial list syncs before the listed keys", async () => {
    const store = new Store(logger);
    for (const name of ["a", "b", "c"]) store.upsert(object(name, "1"));
    const synced = gate();
    const { runs, release, reconcile } = recording(0);
    release();
    const c = new Controller({
      name: "widgets",
      informer: { ...source(store), waitForSync: () => synced.opened },
      reconcile,
      logger,
      metrics: {
        controller: createControllerMetrics(new Registry()),
        workqueue: createWorkqueueMetrics(new Registry()),
      },
      concurrency: 1,
    });
    const starting = c.start();
    store.upsert(changed("c", "2", { generation: 2 }));
    store.upsert(changed("b", "2", {}, { status: { observedGeneration: 1, by: "someone else" } }));
    synced.open();
    await starting;
    await until(() => runs.length === 3);
    await c.stop();
    expect(runs).toEqual(["ns/c", "ns/a", "ns/b"]);
  });

  it("serves other keys while a reconcile waits on an answer, up to maxInFlight begun at once", async () => {
    const store = new Store(logger);
    for (const name of ["a", "b", "c"]) store.upsert(object(name, "1"));
    const answer = gate();
    const started: string[] = [];
    const finished: string[] = [];
    const reconcile: Reconciler = async ({ key }, context) => {
      started.push(key);
      await context.whileWaiting(answer.opened);
      finished.push(key);
      return Outcome.done();
    };
    const { controller: c } = controller(store, reconcile, 1, { maxInFlight: 2 });
    await c.start();
    // One worker, yet two reconciles wait on answers side by side; the third waits for a place.
    await until(() => started.length === 2);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(started).toHaveLength(2);
    expect(c.busy()).toBe(true);
    answer.open();
    await until(() => finished.length === 3);
    await c.stop();
    expect(new Set(finished)).toEqual(new Set(["ns/a", "ns/b", "ns/c"]));
  });

  it("takes its worker back after an answer while no other key is queued", async () => {
    const store = new Store(logger);
    store.upsert(object("a", "1"));
    const answer = gate();
    const work = gate();
    const steps: string[] = [];
    const reconcile: Reconciler = async ({ key }, context) => {
      steps.push(`${key} starts`);
      if (key === "ns/a") {
        await context.whileWaiting(answer.opened);
        steps.push("ns/a answered");
        // Working on the answer, not waiting: this holds a worker.
        await work.opened;
      }
      steps.push(`${key} ends`);
      return Outcome.done();
    };
    const { controller: c, registry } = controller(store, reconcile, 1, { maxInFlight: 2 });
    await c.start();
    await until(() => steps.includes("ns/a starts"));
    expect(await activeWorkers(registry)).toBe(0);
    answer.open();
    await until(() => steps.includes("ns/a answered"));
    expect(await activeWorkers(registry)).toBe(1);
    store.upsert(object("b", "1"));
    // b is taken off the queue and waits for the only worker, which a holds again.
    await until(() => c.queue.length === 0);
    await new Promise((resolve) => setImmediate(resolve));
    work.open();
    await until(() => steps.includes("ns/b ends"));
    await c.stop();
    expect(steps).toEqual(["ns/a starts", "ns/a answered", "ns/a ends", "ns/b starts", "ns/b ends"]);
  });

  it("never deadlocks when a reconcile holding the only worker waits for another's answer (one shared GET /me)", async () => {
    const store = new Store(logger);
    for (const name of ["a", "b"]) store.upsert(object(name, "1"));
    const answer = gate();
    let shared: Promise<void> | undefined;
    const finished: string[] = [];
    const reconcile: Reconciler = async ({ key }, context) => {
      if (shared === undefined) shared = context.whileWaiting(answer.opened);
      else setTimeout(answer.open, 20);
      await shared;
      finished.push(key);
      return Outcome.done();
    };
    const { controller: c } = controller(store, reconcile, 1, { maxInFlight: 2 });
    await c.start();
    await until(() => finished.length === 2);
    await c.stop();
  });

  it("without whileWaiting, a reconcile holds its worker for its whole run", async () => {
    const store = new Store(logger);
    for (const name of ["a", "b"]) store.upsert(object(name, "1"));
    const { runs, release, reconcile } = recording(1);
    const { controller: c } = controller(store, reconcile, 1, { maxInFlight: 4 });
    await c.start();
    await until(() => runs.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(runs).toHaveLength(1);
    release();
    await until(() => runs.length === 2);
    await c.stop();
  });
});
