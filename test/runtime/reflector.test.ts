import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { Informer, type InformerOptions } from "../../src/runtime/informer.ts";
import type { KubeObject } from "../../src/runtime/object.ts";
import { Reflector } from "../../src/runtime/reflector.ts";
import { Store } from "../../src/runtime/store.ts";
import { kubeConfig, useNamespace } from "../support/kube.ts";
import {
  counterValue,
  installWidgetCrd,
  runtimeKit,
  until,
  versions,
  widgets,
  widgetType,
} from "./helpers.ts";

const config = kubeConfig();
const server = widgets(config);
const resource = { resource: "widgets.runtime.berth.dev" };
let stops: Array<() => Promise<void>> = [];

beforeAll(() => installWidgetCrd(config));

afterEach(async () => {
  await Promise.all(stops.map((stop) => stop()));
  stops = [];
});

function startInformer(kit = runtimeKit(config), options: Partial<InformerOptions> = {}) {
  const informer = new Informer({
    client: kit.client,
    type: widgetType,
    logger: kit.logger,
    metrics: kit.metrics.watch,
    ...options,
  });
  informer.start();
  stops.push(async () => {
    await informer.stop();
    await kit.client.close();
  });
  return { informer, kit };
}

describe("reflector", () => {
  const namespace = useNamespace("reflector");

  it("lists in pages and stays equal to the server across watches the server closes", async () => {
    for (let i = 0; i < 8; i++) await server.create(namespace.name, `w${i}`, { size: i });
    const { informer, kit } = startInformer(undefined, {
      namespaces: [namespace.name],
      pageSize: 2,
      watchTimeoutSeconds: { min: 2, max: 2 },
    });
    await informer.waitForSync();
    expect(versions(informer.list())).toEqual(await server.state(namespace.name));

    // Changes spread over several server-closed watches.
    for (let round = 0; round < 4; round++) {
      await server.create(namespace.name, `late${round}`);
      await server.patch(namespace.name, `w${round}`, [
        { op: "replace", path: "/spec/size", value: 100 + round },
      ]);
      await server.remove(namespace.name, `w${round + 4}`);
      await new Promise((resolve) => setTimeout(resolve, 1500));
    }
    const expected = await server.state(namespace.name);
    await until(
      async () => versions(informer.list()).join() === expected.join(),
      10_000,
      "store equals server",
    );
    expect(informer.get(`${namespace.name}/w1`)?.spec).toEqual({ size: 101 });
    expect(await counterValue(kit.metrics, "berth_watch_relists_total", resource)).toBe(0);
    expect(await counterValue(kit.metrics, "berth_watch_restarts_total", resource)).toBe(0);
  });

  it("relists on 410 Gone and reports the objects deleted meanwhile as deletions", async () => {
    await server.create(namespace.name, "live");
    const kit = runtimeKit(config);
    const store = new Store(kit.logger);
    // State remembered from an earlier run: one object since deleted, at a resourceVersion long compacted.
    const ghost: KubeObject = {
      metadata: { name: "ghost", namespace: namespace.name, resourceVersion: "1" },
    };
    store.upsert(ghost);
    const deleted: string[] = [];
    store.on({ delete: (o) => deleted.push(o.metadata.name) });
    const reflector = new Reflector({
      client: kit.client,
      type: widgetType,
      store,
      logger: kit.logger,
      metrics: kit.metrics.watch,
      namespace: namespace.name,
      resourceVersion: "1",
    });
    reflector.start();
    stops.push(() => reflector.stop());

    await until(() => deleted.includes("ghost"), 10_000, "ghost swept");
    expect(versions(store.list())).toEqual(await server.state(namespace.name));
    expect(await counterValue(kit.metrics, "berth_watch_relists_total", resource)).toBe(1);
    await server.create(namespace.name, "after");
    await until(
      () => store.get(`${namespace.name}/after`) !== undefined,
      10_000,
      "watch resumed after relist",
    );
  });

  it("restarts a watch that stays silent past its bound, and keeps following changes", async () => {
    const { informer, kit } = startInformer(undefined, {
      namespaces: [namespace.name],
      watchTimeoutSeconds: { min: 60, max: 60 },
      idleTimeoutMs: 700,
    });
    await informer.waitForSync();
    await until(
      async () => (await counterValue(kit.metrics, "berth_watch_restarts_total", resource)) >= 2,
      10_000,
      "silent watch restarted",
    );
    await server.create(namespace.name, "noticed");
    await until(
      () => informer.get(`${namespace.name}/noticed`) !== undefined,
      10_000,
      "change seen after restarts",
    );
    expect(await counterValue(kit.metrics, "berth_watch_relists_total", resource)).toBe(0);
  });

  it("watches only the namespaces and labels asked for", async () => {
    const other = `${namespace.name}-other`;
    const { CoreV1Api } = await import("@kubernetes/client-node");
    const core = config.makeApiClient(CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: other } } });
    try {
      await server.create(namespace.name, "mine", {}, { tier: "a" });
      await server.create(namespace.name, "unlabelled");
      await server.create(other, "theirs", {}, { tier: "a" });
      const { informer } = startInformer(undefined, {
        namespaces: [namespace.name, other],
        labelSelector: "tier=a",
      });
      await informer.waitForSync();
      expect(
        informer
          .list()
          .map((o) => `${o.metadata.namespace}/${o.metadata.name}`)
          .sort(),
      ).toEqual([`${namespace.name}/mine`, `${other}/theirs`].sort());
      // Dropping the label takes the object out of the selection: the watch reports it deleted.
      await server.patch(namespace.name, "mine", [{ op: "remove", path: "/metadata/labels/tier" }]);
      await until(
        () => informer.get(`${namespace.name}/mine`) === undefined,
        10_000,
        "unlabelled object dropped",
      );
      expect(
        informer.list().every((o) => o.kind === "Widget" && o.apiVersion === "runtime.berth.dev/v1"),
      ).toBe(true);
      expect(informer.list().every((o) => o.metadata.managedFields === undefined)).toBe(true);
    } finally {
      await core.deleteNamespace({ name: other }).catch(() => undefined);
    }
  });
});
