import { CustomObjectsApi } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { type BerthObject, berthObjects, withCondition } from "../support/berth-objects.ts";
import { kubeConfig } from "../support/kube.ts";
import { serviceHttp } from "../support/service-http.ts";
import { hasCondition, useOperatorEnvironment } from "./support.ts";

/**
 * A restore from a backup or an export (`kubectl get -o yaml` without status, Velero, a cluster
 * migration): the external IDs live on in the berth.dev/external-id annotation, so every resource
 * adopts its object and nothing is created twice.
 */
describe("restoring berth objects without their status", () => {
  const env = useOperatorEnvironment();
  const objects = berthObjects(kubeConfig(), () => env.namespace);
  const custom = kubeConfig().makeApiClient(CustomObjectsApi);
  const plurals = ["projects", "apps", "grids", "serverorders"] as const;
  const kinds = { projects: "Project", apps: "App", grids: "Grid", serverorders: "ServerOrder" };
  const names = { projects: "demo", apps: "web", grids: "pool", serverorders: "batch" };

  /** What an export without status carries: metadata names and annotations, and the spec. */
  function exported(object: BerthObject, plural: (typeof plurals)[number]) {
    const { name, labels, annotations } = object.metadata as {
      name: string;
      labels?: Record<string, string>;
      annotations?: Record<string, string>;
    };
    return {
      apiVersion: "berth.dev/v1alpha1",
      kind: kinds[plural],
      metadata: { name, ...(labels ? { labels } : {}), ...(annotations ? { annotations } : {}) },
      spec: (object as { spec?: unknown }).spec,
    };
  }

  it("adopts every object from its annotation, with zero creates at the service", async () => {
    const account = await env.setUp();
    const service = serviceHttp(env.baseUrl, account.token);
    await env.startOperator();
    await env.create("projects", "demo", {});
    await env.create("apps", "web", { projectRef: { name: "demo" }, image: "nginx:1.27" });
    await objects.create("grids", "pool", {});
    await objects.create("serverorders", "batch", {
      gridRefs: [{ name: "pool" }],
      csp: "native",
      region: "eu-central",
      zone: "eu-central-1a",
      instanceType: "native.small",
      count: 1,
      approved: true,
      maxHourlyCost: "1",
    });
    const annotated = (o: BerthObject | undefined) =>
      withCondition("Ready")(o) && o?.metadata.annotations?.["berth.dev/external-id"] !== undefined;
    const backup = [];
    for (const plural of plurals) {
      const object = await objects.waitFor(plural, names[plural], annotated, 40_000);
      if (object === undefined) throw new Error(`${plural} not ready`);
      backup.push({
        plural,
        body: exported(object, plural),
        id: object.metadata.annotations?.["berth.dev/external-id"],
      });
    }
    const creates = () =>
      ["createProject", "createApp", "createGrid"].map((op) => env.requests(op).length).join(",") +
      `,${env.requests("provisionServers").filter((r) => r.status === 202).length}`;
    const before = creates();
    expect(before).toBe("1,1,1,1");

    // The objects go (Orphan: the service keeps everything), then come back from the export.
    for (const plural of plurals) {
      await objects.patch(plural, names[plural], { spec: { deletionPolicy: "Orphan" } });
      await objects.remove(plural, names[plural]);
    }
    for (const plural of plurals)
      await objects.waitFor(plural, names[plural], (o) => o === undefined, 30_000);
    for (const { plural, body } of backup) {
      await custom.createNamespacedCustomObject({
        group: "berth.dev",
        version: "v1alpha1",
        plural,
        namespace: env.namespace,
        body,
      });
    }
    for (const { plural, id } of backup) {
      const restored = await objects.waitFor(plural, names[plural], withCondition("Ready"), 40_000);
      const field = { projects: "projectId", apps: "appId", grids: "gridId", serverorders: "orderId" }[
        plural
      ];
      expect(restored?.status?.[field]).toBe(id);
    }
    await env.waitFor("apps", "web", hasCondition("Ready"));
    expect(creates()).toBe(before);
    expect(await service.items("/projects")).toHaveLength(1);
    expect(await service.items("/grids")).toHaveLength(1);
    expect(await service.items("/servers/orders")).toHaveLength(1);
  });
});
