import { Writable } from "node:stream";
import { CustomObjectsApi } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { importCommand } from "../../src/cli/commands/import.ts";
import type { Manifest } from "../../src/cli/import/manifests.ts";
import { type BerthObject, berthObjects, conditionOf, withCondition } from "../support/berth-objects.ts";
import { kubeConfig } from "../support/kube.ts";
import { serviceHttp } from "../support/service-http.ts";
import { changingOperations, condition, hasCondition, useOperatorEnvironment } from "./support.ts";

const placement = {
  csp: "native",
  region: "eu-central",
  zone: "eu-central-1a",
  instanceType: "native.small",
};

describe("management policies and pauses (calls counted from the simulator's request log)", () => {
  const env = useOperatorEnvironment();
  const custom = kubeConfig().makeApiClient(CustomObjectsApi);
  const objects = berthObjects(kubeConfig(), () => env.namespace);
  const changes = () => changingOperations.map((op) => env.requests(op).length).reduce((a, b) => a + b, 0);

  /** A project and a running app made at the service by a person, not by berth. */
  async function existingApp(token: string, image: string) {
    const service = serviceHttp(env.baseUrl, token);
    const projectId = (await service.post<{ id: string }>("/projects", { name: "legacy" })).body.id;
    const created = await service.post<{ id: string }>(`/projects/${projectId}/apps`, {
      name: "old",
      config: { image },
    });
    return { service, projectId, appId: created.body.id };
  }

  it("[Observe] adopts a running app it differs from with reads only; switching to [*] converges it", async () => {
    const account = await env.setUp();
    const { service, projectId, appId } = await existingApp(account.token, "nginx:1.26");
    await env.startOperator();
    const before = changes();
    await env.create("apps", "watched", {
      projectId,
      appId,
      displayName: "old",
      image: "nginx:1.27",
      managementPolicies: ["Observe"],
    });
    const observed = await env.waitFor(
      "apps",
      "watched",
      (a) => a?.status?.state === "running" && hasCondition("Ready", "False", "DriftNotReverted")(a),
      30_000,
    );
    expect(observed?.status?.appId).toBe(appId);
    expect(observed?.status?.cost).toBeDefined();
    expect(condition(observed, "Ready")?.message).toContain("image");
    expect(condition(observed, "Reconciling")).toBeUndefined();
    // Never an owner: no claim, no finalizer.
    expect(observed?.metadata.labels?.["berth.dev/claim"]).toBeUndefined();
    expect(observed?.metadata.finalizers ?? []).toEqual([]);
    expect(await env.eventReasons("watched")).toContain("DriftNotReverted");
    expect(changes()).toBe(before);
    const stillOld = await service.get<{ config: { image: string } }>(`/projects/${projectId}/apps/${appId}`);
    expect(stillOld.body.config.image).toBe("nginx:1.26");

    await env.patch("apps", "watched", { spec: { managementPolicies: ["*"] } });
    const managed = await env.waitFor(
      "apps",
      "watched",
      (a) => a?.status?.observedGeneration === 2 && hasCondition("Ready")(a),
      30_000,
    );
    expect(managed?.metadata.labels?.["berth.dev/claim"]).toBeDefined();
    expect(env.requests("updateApp")).toHaveLength(1);
    expect(env.requests("createApp")).toHaveLength(1); // the test's own
    const after = await service.get<{ config: { image: string } }>(`/projects/${projectId}/apps/${appId}`);
    expect(after.body.config.image).toBe("nginx:1.27");
  });

  it("[Observe] of an app that doesn't exist is a condition, not a create; its deletion calls nothing", async () => {
    await env.setUp();
    await env.startOperator();
    await env.create("projects", "demo", {});
    await env.waitFor("projects", "demo", hasCondition("Ready"), 30_000);
    const before = changes();
    await env.create("apps", "ghost", {
      projectRef: { name: "demo" },
      image: "nginx:1.27",
      managementPolicies: ["Observe"],
    });
    await env.waitFor("apps", "ghost", hasCondition("Ready", "False", "ExternalNotFound"), 30_000);
    await env.remove("apps", "ghost");
    await env.waitFor("apps", "ghost", (a) => a === undefined, 30_000);
    expect(changes()).toBe(before);
  });

  it("berth.dev/paused holds every change (create, edit, restart, delete) until it is lifted, then each converges", async () => {
    await env.setUp();
    await env.annotateNamespace({ "berth.dev/paused": "true" });
    await env.startOperator();
    const before = changes();
    await env.create("projects", "demo", {});
    await env.create("apps", "web", { projectRef: { name: "demo" }, image: "nginx:1.27" });
    const paused = (o: Parameters<typeof condition>[0]) => condition(o, "Ready")?.reason === "Paused";
    await env.waitFor("projects", "demo", (p) => condition(p, "Ready")?.reason === "Paused", 30_000);
    await env.waitFor("apps", "web", (a) => condition(a, "Ready")?.reason === "Paused", 30_000);
    expect(changes()).toBe(before);

    // Lifted: both are made at once (the Namespace's watch, not a poll).
    await env.annotateNamespace({ "berth.dev/paused": null });
    const ready = await env.waitFor("apps", "web", hasCondition("Ready"), 30_000);
    const appId = String(ready?.status?.appId);
    expect(env.requests("createProject")).toHaveLength(1);
    expect(env.requests("createApp")).toHaveLength(1);

    // Paused again: an edit, a restart request and a deletion all wait.
    await env.annotateNamespace({ "berth.dev/paused": "true" });
    await env.waitFor("apps", "web", (a) => condition(a, "Ready")?.reason === "Paused", 30_000);
    const held = changes();
    await env.patch("apps", "web", {
      metadata: { annotations: { "berth.dev/restart-requested-at": "r1" } },
      spec: { image: "nginx:1.28" },
    });
    const edited = await env.waitFor(
      "apps",
      "web",
      (a) => a?.status?.observedGeneration === 2 && paused(a),
      30_000,
    );
    expect(condition(edited, "Ready")?.message).toContain("updating the app");
    expect(edited?.status?.lastHandledRestartAt).toBeUndefined();
    await env.remove("apps", "web");
    await env.waitFor("apps", "web", (a) => a?.metadata.deletionTimestamp !== undefined && paused(a), 30_000);
    expect(changes()).toBe(held);
    expect(await env.get("apps", "web")).toBeDefined();

    // Lifted: the deletion goes on (stop, delete) and the app is gone at the service.
    await env.annotateNamespace({ "berth.dev/paused": null });
    await env.waitFor("apps", "web", (a) => a === undefined, 60_000);
    expect(env.requests("deleteApp")).toHaveLength(1);
    expect(env.requests("updateApp")).toHaveLength(0);
    expect(appId).not.toBe("undefined");
  });

  it("the operator's --paused flag holds everything it watches", async () => {
    await env.setUp();
    await env.startOperator({}, "10m", { paused: true });
    const before = changes();
    await env.create("projects", "demo", {});
    await env.waitFor("projects", "demo", (p) => condition(p, "Ready")?.reason === "Paused", 30_000);
    expect(condition(await env.get("projects", "demo"), "Ready")?.message).toContain("--paused");
    expect(changes()).toBe(before);
  });

  it("berth.dev/paused holds a ServerOrder's order (its dry run too) and its deletion; lifting it resumes each at once", async () => {
    const account = await env.setUp();
    await env.annotateNamespace({ "berth.dev/paused": "true" });
    // Drift checks a day apart: only the Namespace's watch can wake a held resource within the test.
    await env.startOperator({}, "24h");
    const service = serviceHttp(env.baseUrl, account.token);
    const paused = (o: BerthObject | undefined) => conditionOf(o, "Ready")?.reason === "Paused";
    await objects.create("serverorders", "batch", {
      ...placement,
      count: 1,
      approved: true,
      maxHourlyCost: "1",
    });
    const held = await objects.waitFor("serverorders", "batch", paused, 30_000);
    expect(conditionOf(held, "Ready")?.message).toContain("asking for an estimate (dry run)");
    expect(changes()).toBe(0);

    // Lifted: the order is placed at once.
    await env.annotateNamespace({ "berth.dev/paused": null });
    const ready = await objects.waitFor("serverorders", "batch", withCondition("Ready"), 30_000);
    const orderId = String(ready?.status?.orderId);
    const placed = () => env.requests("provisionServers").filter((r) => r.status === 202 && !r.replayed);
    expect(placed()).toHaveLength(1);

    // Paused again: the deletion waits, its servers untouched.
    await env.annotateNamespace({ "berth.dev/paused": "true" });
    await objects.waitFor("serverorders", "batch", paused, 30_000);
    const before = changes();
    await objects.remove("serverorders", "batch");
    const deleting = await objects.waitFor(
      "serverorders",
      "batch",
      (o) => paused(o) && conditionOf(o, "Ready")?.message.includes("held back deprovisioning") === true,
      30_000,
    );
    expect(deleting?.metadata.deletionTimestamp).toBeDefined();
    expect(changes()).toBe(before);
    const kept = await service.items<{ state: string }>(`/servers?orderId=${orderId}`);
    expect(kept.map((s) => s.state)).toEqual(["running"]);

    // Lifted: the servers are deprovisioned and the ServerOrder goes.
    await env.annotateNamespace({ "berth.dev/paused": null });
    await objects.waitForGone("serverorders", "batch", 60_000);
    expect(env.requests("deprovisionServers").length).toBeGreaterThan(0);
    expect(placed()).toHaveLength(1);
  });

  it("a Namespace's defaults apply to resources that set none: resource → namespace → operator", async () => {
    const account = await env.setUp();
    const { projectId, appId } = await existingApp(account.token, "nginx:1.26");
    await env.annotateNamespace({
      "berth.dev/management-policies": "Observe",
      "berth.dev/deletion-policy": "Orphan",
    });
    await env.startOperator({}, "10m", { defaultManagementPolicies: "*" });
    const before = changes();
    // Sets none: the Namespace's [Observe] applies (reported, not reverted).
    await env.create("apps", "inherits", { projectId, appId, displayName: "old", image: "nginx:1.27" });
    await env.waitFor("apps", "inherits", hasCondition("Ready", "False", "DriftNotReverted"), 30_000);
    expect(changes()).toBe(before);
    // Its own policies win: it converges the app.
    await env.create("apps", "own", {
      projectId,
      appId,
      displayName: "old",
      image: "nginx:1.27",
      managementPolicies: ["*"],
    });
    await env.waitFor("apps", "own", hasCondition("Ready"), 30_000);
    expect(env.requests("updateApp")).toHaveLength(1);
    // The Namespace's deletion policy: Orphan, so its deletion leaves the app.
    await env.remove("apps", "own");
    await env.waitFor("apps", "own", (a) => a === undefined, 30_000);
    expect(env.requests("deleteApp")).toHaveLength(0);
  });

  it("berth import's manifests, applied to a fresh cluster, adopt every object with 0 creates and 0 orders", async () => {
    const account = await env.setUp();
    const { service, projectId } = await existingApp(account.token, "nginx:1.26");
    await service.post(`/projects/${projectId}/apps`, { name: "api", config: { image: "nginx:1.27" } });
    const gridId = (await service.post<{ id: string }>("/grids", { name: "pool" })).body.id;
    const orderId = (
      await service.post<{ id: string }>("/servers/provision", {
        ...placement,
        count: 2,
        gridIds: [gridId],
        dryRun: false,
      })
    ).body.id;
    const madeByHand = changes();
    let out = "";
    const sink = (write: (chunk: string) => void) =>
      new Writable({
        write(chunk, _encoding, done) {
          write(String(chunk));
          done();
        },
      });
    const code = await importCommand.run(
      importCommand.config.parse({ apiKey: account.token, hostingBaseUrl: env.baseUrl }),
      { stdout: sink((c) => (out += c)), stderr: sink(() => undefined) },
    );
    expect(code).toBe(0);
    expect(out).toMatch(/# \d+ calls to the service/);
    expect(changes()).toBe(madeByHand);
    const manifests = parseAllDocuments(out).map((d) => d.toJS() as Manifest);
    expect(manifests.map((m) => m.kind).sort()).toEqual(["App", "App", "Grid", "Project", "ServerOrder"]);
    const plurals = { Project: "projects", App: "apps", Grid: "grids", ServerOrder: "serverorders" } as const;
    for (const manifest of manifests)
      await custom.createNamespacedCustomObject({
        group: "berth.dev",
        version: "v1alpha1",
        plural: plurals[manifest.kind],
        namespace: env.namespace,
        body: manifest,
      });
    await env.startOperator();
    for (const manifest of manifests) {
      const field = { Project: "projectId", App: "appId", Grid: "gridId", ServerOrder: "orderId" }[
        manifest.kind
      ];
      const adopted = await objects.waitFor(
        plurals[manifest.kind],
        manifest.metadata.name,
        (o) => withCondition("Ready")(o) && o?.status?.[field] === manifest.spec[field],
        30_000,
      );
      expect(adopted?.status?.[field]).toBe(manifest.spec[field]);
    }
    expect(manifests.find((m) => m.kind === "Grid")?.spec.gridId).toBe(gridId);
    const order = manifests.find((m) => m.kind === "ServerOrder");
    expect(order?.spec).toMatchObject({ orderId, count: 2, gridIds: [gridId] });
    const adopted = await objects.get("serverorders", order?.metadata.name ?? "");
    expect(adopted?.status?.servers).toHaveLength(2);
    // Not one create, dry run or order: every object was adopted as it is.
    expect(changes()).toBe(madeByHand);
    expect(env.requests("provisionServers")).toHaveLength(1); // the test's own order
  });
});
