import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { CoreV1Api, KubeConfig } from "@kubernetes/client-node";
import { afterAll, describe, expect, it } from "vitest";
import { type ControlPlane, startControlPlane } from "../../src/control-plane/control-plane.ts";
import { Informer } from "../../src/runtime/informer.ts";
import { createLogger } from "../../src/telemetry/logger.ts";
import {
  counterValue,
  installWidgetCrd,
  runtimeKit,
  until,
  versions,
  widgets,
  widgetType,
} from "./helpers.ts";

const logger = createLogger({ level: "warn" });
let controlPlane: ControlPlane | undefined;
let workDir: string | undefined;

afterAll(async () => {
  await controlPlane?.stop();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

function loadConfig(kubeconfigPath: string, into = new KubeConfig()): KubeConfig {
  into.loadFromFile(kubeconfigPath);
  return into;
}

describe("reflector across a control-plane restart", () => {
  it("reconnects to the restarted apiserver (same port, same etcd data) and ends equal to its list", async () => {
    workDir = await mkdtemp(path.join(os.tmpdir(), "berth-restart-"));
    const dataDir = path.join(workDir, "data");
    controlPlane = await startControlPlane({ dir: workDir, dataDir, logger });
    const port = Number(new URL(controlPlane.server).port);
    const config = loadConfig(controlPlane.kubeconfigPath);
    await installWidgetCrd(config);
    const namespace = "restart";
    await config.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: namespace } } });
    const before = widgets(config);
    for (let i = 0; i < 5; i++) await before.create(namespace, `w${i}`, { size: i });

    const kit = runtimeKit(config);
    const informer = new Informer({
      client: kit.client,
      type: widgetType,
      logger: kit.logger,
      metrics: kit.metrics.watch,
      namespaces: [namespace],
      backoff: { initialMs: 200, maxMs: 2000, factor: 2, jitter: 0.5, resetAfterMs: 60_000 },
    });
    informer.start();
    try {
      await informer.waitForSync();
      expect(versions(informer.list())).toEqual(await before.state(namespace));

      await controlPlane.stop();
      controlPlane = await startControlPlane({ dir: workDir, dataDir, port, logger });
      expect(new URL(controlPlane.server).port).toBe(String(port));

      // Changes the informer cannot see yet: the restarted apiserver has new credentials
      // (the local control plane mints them at each start), which the informer gets below.
      const after = widgets(loadConfig(controlPlane.kubeconfigPath));
      await after.remove(namespace, "w0");
      await after.remove(namespace, "w1");
      await after.patch(namespace, "w2", [{ op: "replace", path: "/spec/size", value: 42 }]);
      await after.create(namespace, "fresh");
      loadConfig(controlPlane.kubeconfigPath, config);

      const expected = await after.state(namespace);
      await until(
        async () => versions(informer.list()).join() === expected.join(),
        30_000,
        "store equals server",
      );
      expect(informer.get(`${namespace}/w0`)).toBeUndefined();
      expect(informer.get(`${namespace}/w2`)?.spec).toEqual({ size: 42 });
      expect(await counterValue(kit.metrics, "berth_watch_restarts_total")).toBeGreaterThan(0);

      await after.create(namespace, "later");
      await until(() => informer.get(`${namespace}/later`) !== undefined, 10_000, "watching again");
    } finally {
      await informer.stop();
      await kit.client.close();
    }
  }, 180_000);
});
