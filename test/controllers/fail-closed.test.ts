import { describe, expect, it } from "vitest";
import { type BerthObject, berthObjects, conditionOf, withCondition } from "../support/berth-objects.ts";
import { kubeConfig } from "../support/kube.ts";
import { serviceHttp } from "../support/service-http.ts";
import { changingOperations, useOperatorEnvironment } from "./support.ts";

/**
 * Namespace annotations fail closed: a value berth can't read holds every change in that
 * Namespace, as a pause would, and each resource there says which annotation and what values it
 * takes. Counted from the simulator's request log; the app is read back at the service.
 */
describe("a Namespace annotation berth can't read", () => {
  const env = useOperatorEnvironment();
  const objects = berthObjects(kubeConfig(), () => env.namespace);
  const changes = () => changingOperations.map((op) => env.requests(op).length).reduce((a, b) => a + b, 0);
  const invalid = withCondition("Ready", "False", "NamespaceAnnotationInvalid");
  const said = (o: BerthObject | undefined) => conditionOf(o, "Ready")?.message ?? "";

  /** A managed running app: its path at the service. */
  async function managedApp() {
    await objects.create("projects", "demo", {});
    await objects.create("apps", "web", { projectRef: { name: "demo" }, image: "nginx:1.27" });
    const web = await objects.waitFor("apps", "web", (o) => withCondition("Ready")(o), 40_000);
    return `/projects/${String(web?.status?.projectId)}/apps/${String(web?.status?.appId)}`;
  }

  it('berth.dev/paused: "yes" holds every create, and says what the annotation takes', async () => {
    await env.setUp();
    await env.annotateNamespace({ "berth.dev/paused": "yes" });
    await env.startOperator();
    await objects.create("projects", "demo", {});
    await objects.create("apps", "web", { projectRef: { name: "demo" }, image: "nginx:1.27" });
    const project = await objects.waitFor("projects", "demo", invalid, 30_000);
    expect(said(project)).toContain('berth.dev/paused: "yes" can\'t be read (it takes "true" or "false")');
    expect(project?.metadata.finalizers ?? []).toEqual([]);
    expect(changes()).toBe(0);
    // Fixed: what was held goes on at once.
    await env.annotateNamespace({ "berth.dev/paused": "false" });
    await objects.waitFor("apps", "web", withCondition("Ready"), 40_000);
    expect(env.requests("createApp")).toHaveLength(1);
  });

  it("berth.dev/management-policies: observe holds an edit; berth.dev/deletion-policy: orphan holds a deletion", async () => {
    const account = await env.setUp();
    await env.startOperator();
    const path = await managedApp();
    const service = serviceHttp(env.baseUrl, account.token);
    const before = changes();
    await env.annotateNamespace({ "berth.dev/management-policies": "observe" });
    await objects.patch("apps", "web", { spec: { image: "nginx:1.28" } });
    const held = await objects.waitFor(
      "apps",
      "web",
      (o) => invalid(o) && o?.status?.observedGeneration === 2,
      30_000,
    );
    expect(said(held)).toContain('berth.dev/management-policies: "observe" can\'t be read');
    expect(said(held)).toContain("held back");
    expect(changes()).toBe(before);

    await env.annotateNamespace({
      "berth.dev/management-policies": null,
      "berth.dev/deletion-policy": "orphan",
    });
    await objects.remove("apps", "web");
    const waiting = await objects.waitFor(
      "apps",
      "web",
      (o) => invalid(o) && said(o).includes("berth.dev/deletion-policy") && said(o).includes("held back"),
      30_000,
    );
    expect(said(waiting)).toContain('(it takes "Delete" or "Orphan")');
    expect(changes()).toBe(before);
    // Fixed to what was meant: released without calls, the app left at the service.
    await env.annotateNamespace({ "berth.dev/deletion-policy": "Orphan" });
    await objects.waitForGone("apps", "web", 30_000);
    expect(changes()).toBe(before);
    const app = await service.get<{ config: { image: string } }>(path);
    expect([app.status, app.body.config.image]).toEqual([200, "nginx:1.27"]);
  });
});
