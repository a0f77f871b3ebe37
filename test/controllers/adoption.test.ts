import { CustomObjectsApi } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { type BerthObject, berthObjects, withCondition } from "../support/berth-objects.ts";
import { kubeConfig } from "../support/kube.ts";
import { serviceHttp } from "../support/service-http.ts";
import { changingOperations, useOperatorEnvironment } from "./support.ts";

/**
 * Entering a managing policy is an adoption, checked like one: an App whose status names an app
 * (it observed it, or a person wrote it there) but that holds no claim is `AlreadyManaged` while
 * another App holds it, changes nothing, and is released without calls when deleted. Counted from
 * the simulator's request log; the holder's app is read back at the service.
 */
describe("entering a managing policy over what another resource manages", () => {
  const env = useOperatorEnvironment();
  const objects = berthObjects(kubeConfig(), () => env.namespace);
  const custom = kubeConfig().makeApiClient(CustomObjectsApi);
  const changes = () => changingOperations.map((op) => env.requests(op).length).reduce((a, b) => a + b, 0);
  const claimed = (o: BerthObject | undefined) =>
    withCondition("Ready")(o) && o?.metadata.annotations?.["berth.dev/claimant"] !== undefined;
  const alreadyManaged = withCondition("Stalled", "True", "AlreadyManaged");

  /** Team a's App, managing a running app: its IDs. */
  async function managedApp() {
    await objects.create("projects", "demo", {});
    await objects.create("apps", "a", { projectRef: { name: "demo" }, image: "nginx:1.27" });
    const a = await objects.waitFor("apps", "a", claimed, 40_000);
    return { appId: String(a?.status?.appId), projectId: String(a?.status?.projectId) };
  }

  /** `name` is refused naming App a, and its deletion calls nothing; a's app is still running, untouched. */
  async function refusedAndReleased(name: string, ids: { appId: string; projectId: string }, token: string) {
    const before = changes();
    const refused = await objects.waitFor("apps", name, alreadyManaged, 30_000);
    const message = refused?.status?.conditions?.find((c) => c.type === "Stalled")?.message ?? "";
    expect(message).toContain(`App ${env.namespace}/a already manages app ${ids.appId}`);
    expect(refused?.metadata.labels?.["berth.dev/claim"]).toBeUndefined();
    await objects.remove("apps", name);
    await objects.waitForGone("apps", name, 30_000);
    expect(changes()).toBe(before);
    const service = serviceHttp(env.baseUrl, token);
    const path = `/projects/${ids.projectId}/apps/${ids.appId}`;
    const app = await service.get<{ config: { image: string } }>(path);
    const state = await service.get<{ targetState: string }>(`${path}/status`);
    expect([app.status, app.body.config.image, state.body.targetState]).toEqual([
      200,
      "nginx:1.27",
      "running",
    ]);
    // The holder is untouched and still holds.
    expect(claimed(await objects.get("apps", "a"))).toBe(true);
  }

  /** An [Observe] App of a's app that would stop it and change its image, once it observed it. */
  async function observer(name: string, ids: { appId: string; projectId: string }, policies?: string[]) {
    await objects.create("apps", name, {
      ...ids,
      image: "nginx:1.28",
      stopped: true,
      ...(policies === undefined ? {} : { managementPolicies: policies }),
    });
    await objects.waitFor("apps", name, (o) => o?.status?.appId === ids.appId, 30_000);
  }

  it("[Observe] switched to [*] (the berth import workflow) is AlreadyManaged and its deletion calls nothing", async () => {
    const account = await env.setUp();
    await env.startOperator();
    const ids = await managedApp();
    const before = changes();
    await observer("b", ids, ["Observe"]);
    await objects.patch("apps", "b", { spec: { managementPolicies: ["*"] } });
    await refusedAndReleased("b", ids, account.token);
    expect(changes()).toBe(before);
  });

  it("a Namespace's Observe default removed is an adoption too", async () => {
    const account = await env.setUp();
    await env.annotateNamespace({ "berth.dev/management-policies": "Observe" });
    await env.startOperator();
    await objects.create("projects", "demo", { managementPolicies: ["*"] });
    await objects.create("apps", "a", {
      projectRef: { name: "demo" },
      image: "nginx:1.27",
      managementPolicies: ["*"],
    });
    const a = await objects.waitFor("apps", "a", claimed, 40_000);
    const ids = { appId: String(a?.status?.appId), projectId: String(a?.status?.projectId) };
    const before = changes();
    await observer("b", ids);
    await env.annotateNamespace({ "berth.dev/management-policies": null });
    await refusedAndReleased("b", ids, account.token);
    expect(changes()).toBe(before);
  });

  it("a holder going [*] → [Observe] → [*] after another claimed meanwhile is AlreadyManaged", async () => {
    const account = await env.setUp();
    await env.startOperator();
    await objects.create("projects", "demo", {});
    await objects.create("apps", "b", { projectRef: { name: "demo" }, image: "nginx:1.28", stopped: true });
    const b = await objects.waitFor("apps", "b", claimed, 40_000);
    const ids = { appId: String(b?.status?.appId), projectId: String(b?.status?.projectId) };
    // b lets go: [Observe] takes its claim back (it keeps its finalizer).
    await objects.patch("apps", "b", { spec: { managementPolicies: ["Observe"] } });
    await objects.waitFor("apps", "b", (o) => o?.metadata.labels?.["berth.dev/claim"] === undefined, 30_000);
    // a adopts the app and starts it with its image.
    await objects.create("apps", "a", { ...ids, image: "nginx:1.27" });
    await objects.waitFor("apps", "a", (o) => claimed(o) && o?.status?.state === "running", 40_000);
    const before = changes();
    await objects.patch("apps", "b", { spec: { managementPolicies: ["*"] } });
    await refusedAndReleased("b", ids, account.token);
    expect(changes()).toBe(before);
  });

  it("a copy whose berth.dev/claimant a person edited to its own name is AlreadyManaged: it can't take the original's claim time", async () => {
    const account = await env.setUp();
    await env.startOperator();
    const ids = await managedApp();
    const a = await objects.get("apps", "a");
    const before = changes();
    const annotations = {
      ...a?.metadata.annotations,
      "berth.dev/claimant": `${env.namespace}/b`,
      "berth.dev/owned": undefined,
    };
    // The original's identity and claim time, the claimant edited; its own open calls left out.
    await custom.createNamespacedCustomObject({
      group: "berth.dev",
      version: "v1alpha1",
      plural: "apps",
      namespace: env.namespace,
      body: {
        apiVersion: "berth.dev/v1alpha1",
        kind: "App",
        metadata: { name: "b", annotations: JSON.parse(JSON.stringify(annotations)) },
        spec: { ...a?.spec, image: "nginx:1.28", stopped: true },
      },
    });
    await refusedAndReleased("b", ids, account.token);
    expect(changes()).toBe(before);
  });

  it("an app ID a person wrote into status is not a claim: AlreadyManaged, and nothing changes", async () => {
    const account = await env.setUp();
    await env.startOperator();
    const ids = await managedApp();
    const before = changes();
    // b calls nothing while suspended; a person writes a's app into its status meanwhile.
    await objects.create("apps", "b", {
      projectRef: { name: "demo" },
      image: "nginx:1.28",
      stopped: true,
      suspend: true,
    });
    await objects.waitFor("apps", "b", withCondition("Ready", "False", "Suspended"), 30_000);
    await objects.patchStatus("apps", "b", { appId: ids.appId, projectId: ids.projectId });
    await objects.patch("apps", "b", { spec: { suspend: false } });
    await refusedAndReleased("b", ids, account.token);
    expect(changes()).toBe(before);
  });
});
