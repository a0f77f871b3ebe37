import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isKubeError } from "../../src/runtime/errors.ts";
import { EventRecorder, kubeEventSink } from "../../src/runtime/events.ts";
import { ensureFinalizer, removeFinalizer } from "../../src/runtime/finalizers.ts";
import { patchStatus } from "../../src/runtime/status.ts";
import { kubeConfig, useNamespace } from "../support/kube.ts";
import { installWidgetCrd, runtimeKit, widgets, widgetType } from "./helpers.ts";

const config = kubeConfig();
const server = widgets(config);
const kit = runtimeKit(config);

beforeAll(() => installWidgetCrd(config));
afterAll(() => kit.client.close());

describe("finalizers", () => {
  const namespace = useNamespace("finalizers");

  it("adds once, alongside an entry another controller added after we read the object", async () => {
    const stale = await server.create(namespace.name, "w");
    await server.patch(namespace.name, "w", [
      { op: "add", path: "/metadata/finalizers", value: ["other.dev/a"] },
    ]);

    const updated = await ensureFinalizer(kit.client, widgetType, stale, "berth.dev/cleanup");
    expect(updated.metadata.finalizers).toEqual(["other.dev/a", "berth.dev/cleanup"]);
    const again = await ensureFinalizer(kit.client, widgetType, updated, "berth.dev/cleanup");
    expect(again.metadata.resourceVersion).toBe(updated.metadata.resourceVersion);
  });

  it("removes only its own entry even when the list shifted since the object was read", async () => {
    await server.create(namespace.name, "w");
    const stale = await server.patch(namespace.name, "w", [
      { op: "add", path: "/metadata/finalizers", value: ["other.dev/a", "berth.dev/cleanup", "other.dev/b"] },
    ]);
    // Another controller removes its entry: ours moves from index 1 to 0, other.dev/b to 1.
    await server.patch(namespace.name, "w", [{ op: "remove", path: "/metadata/finalizers/0" }]);

    const updated = await removeFinalizer(kit.client, widgetType, stale, "berth.dev/cleanup");
    expect(updated?.metadata.finalizers).toEqual(["other.dev/b"]);
    expect((await server.get(namespace.name, "w")).metadata.finalizers).toEqual(["other.dev/b"]);
  });

  it("lets a deleted object go when its last finalizer is removed", async () => {
    const created = await server.create(namespace.name, "w");
    const held = await ensureFinalizer(kit.client, widgetType, created, "berth.dev/cleanup");
    await server.remove(namespace.name, "w");
    const terminating = await server.get(namespace.name, "w");
    expect(terminating.metadata.deletionTimestamp).toBeDefined();

    await removeFinalizer(kit.client, widgetType, held, "berth.dev/cleanup");
    await expect(server.get(namespace.name, "w")).rejects.toMatchObject({ code: 404 });
  });
});

describe("status patcher", () => {
  const namespace = useNamespace("status");

  it("writes the diff once and makes no request when the status is unchanged", async () => {
    const created = await server.create(namespace.name, "w", { size: 1 });
    const status = {
      observedGeneration: 1,
      conditions: [{ type: "Ready", status: "True", reason: "Converged" }],
    };

    const first = await patchStatus(kit.client, widgetType, created, status);
    expect(first.written).toBe(true);
    expect(first.object.status).toEqual(status);

    const second = await patchStatus(kit.client, widgetType, first.object, structuredClone(status));
    expect(second.written).toBe(false);
    expect((await server.get(namespace.name, "w")).metadata.resourceVersion).toBe(
      first.object.metadata.resourceVersion,
    );

    const third = await patchStatus(kit.client, widgetType, first.object, { conditions: status.conditions });
    expect(third.written).toBe(true);
    expect((await server.get(namespace.name, "w")).status).toEqual({ conditions: status.conditions });
  });

  it("retries after a concurrent spec change, but refuses to overwrite a concurrent status change", async () => {
    const created = await server.create(namespace.name, "w", { size: 1 });
    await server.patch(namespace.name, "w", [{ op: "replace", path: "/spec/size", value: 2 }]);
    const afterSpecChange = await patchStatus(kit.client, widgetType, created, { seen: 1 });
    expect(afterSpecChange.written).toBe(true);
    expect((await server.get(namespace.name, "w")).status).toEqual({ seen: 1 });

    const staleAgain = afterSpecChange.object;
    await kit.client.call(
      "PATCH",
      `/apis/runtime.berth.dev/v1/namespaces/${namespace.name}/widgets/w/status`,
      {
        body: { status: { seen: 1, byOther: true } },
        contentType: "application/merge-patch+json",
      },
    );
    const conflict = await patchStatus(kit.client, widgetType, staleAgain, { seen: 2 }).catch(
      (e: unknown) => e,
    );
    expect(isKubeError(conflict, "conflict")).toBe(true);
    expect((await server.get(namespace.name, "w")).status).toEqual({ seen: 1, byOther: true });
  });
});

describe("event recorder", () => {
  const namespace = useNamespace("events");

  it("creates events.k8s.io/v1 Events and aggregates repeats into a series", async () => {
    const widget = await server.create(namespace.name, "w");
    const recorder = new EventRecorder({
      sink: kubeEventSink(kit.client),
      logger: kit.logger,
      reportingInstance: "test-host",
    });
    recorder.record(widget, "Warning", "BuildFailed", "Build b1 failed at step install.", "Build");
    await recorder.flush();
    recorder.record(widget, "Warning", "BuildFailed", "Build b1 failed at step install.", "Build");
    recorder.record(widget, "Warning", "BuildFailed", "Build b1 failed at step install.", "Build");
    recorder.record(widget, "Normal", "Started", "App started.", "Start");
    await recorder.flush();

    const list = (await kit.client.call(
      "GET",
      `/apis/events.k8s.io/v1/namespaces/${namespace.name}/events`,
    )) as {
      items: Array<
        Record<string, unknown> & { reason: string; series?: { count: number; lastObservedTime: string } }
      >;
    };
    expect(list.items).toHaveLength(2);
    const failed = list.items.find((e) => e.reason === "BuildFailed");
    expect(failed).toMatchObject({
      type: "Warning",
      action: "Build",
      note: "Build b1 failed at step install.",
      reportingController: "berth.dev/operator",
      reportingInstance: "test-host",
      regarding: { kind: "Widget", name: "w", namespace: namespace.name, uid: widget.metadata.uid },
    });
    expect(failed?.eventTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    expect(failed?.series?.count).toBe(3);
    expect(failed?.series?.lastObservedTime).toMatch(/\.\d{6}Z$/);
  });
});
