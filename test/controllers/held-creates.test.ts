import { describe, expect, it } from "vitest";
import { berthObjects, type conditionOf, withCondition } from "../support/berth-objects.ts";
import { kubeConfig } from "../support/kube.ts";
import { serviceHttp } from "../support/service-http.ts";
import { useOperatorEnvironment } from "./support.ts";

/**
 * A finalizer and a lookup only when a call may have acted: while every create is held (a pause,
 * policies without Create) or refused (a SpendLimit), the App takes no finalizer; after an operator
 * restart it never looks up by name, so a same-named app a person made meanwhile is not adopted,
 * changed or deleted. Counted from the simulator's request log.
 */
describe("creates held back across an operator restart", () => {
  const env = useOperatorEnvironment();
  const objects = berthObjects(kubeConfig(), () => env.namespace);

  /** A project made by hand, and an App in it whose create `hold` keeps back. */
  async function heldApp(token: string, spec: Record<string, unknown> = {}) {
    const service = serviceHttp(env.baseUrl, token);
    const projectId = (await service.post<{ id: string }>("/projects", { name: "team" })).body.id;
    await objects.create("apps", "web", { projectId, image: "nginx:1.27", ...spec });
    return { service, projectId };
  }

  /** No finalizer on the held App; the operator stopped; a person's same-named app made meanwhile. */
  async function restartWithPersonsApp(
    held: (o: Parameters<typeof conditionOf>[0]) => boolean,
    setting: { service: ReturnType<typeof serviceHttp>; projectId: string },
  ) {
    const first = await env.startOperator();
    const app = await objects.waitFor("apps", "web", held, 30_000);
    expect(app?.metadata.finalizers ?? []).toEqual([]);
    expect(env.requests("createApp")).toHaveLength(0);
    await first.stop();
    const persons = await setting.service.post<{ id: string }>(`/projects/${setting.projectId}/apps`, {
      name: "web",
      config: { image: "nginx:1.26" },
    });
    return persons.body.id;
  }

  /** The App made its own app once free to; the person's is untouched, and stays when the App is deleted. */
  async function ownAppOnly(
    setting: { service: ReturnType<typeof serviceHttp>; projectId: string },
    persons: string,
  ) {
    const ready = await objects.waitFor("apps", "web", withCondition("Ready"), 40_000);
    expect(ready?.status?.appId).not.toBe(persons);
    // The person's create and the App's own, nothing else.
    expect(env.requests("createApp").filter((r) => r.status === 201)).toHaveLength(2);
    const touched = (op: string) => env.requests(op).filter((r) => r.path.includes(persons));
    await objects.remove("apps", "web");
    await objects.waitForGone("apps", "web", 40_000);
    for (const op of ["updateApp", "stopApp", "startApp", "restartApp", "deleteApp"])
      expect(touched(op)).toEqual([]);
    const left = await setting.service.get<{ config: { image: string } }>(
      `/projects/${setting.projectId}/apps/${persons}`,
    );
    expect([left.status, left.body.config.image]).toEqual([200, "nginx:1.26"]);
    expect(env.requests("deleteApp")).toHaveLength(1); // its own
  }

  it("held by a Namespace pause", async () => {
    const account = await env.setUp();
    await env.annotateNamespace({ "berth.dev/paused": "true" });
    const setting = await heldApp(account.token);
    const persons = await restartWithPersonsApp(withCondition("Ready", "False", "Paused"), setting);
    await env.startOperator();
    await env.annotateNamespace({ "berth.dev/paused": null });
    await ownAppOnly(setting, persons);
  });

  it("held by policies without Create", async () => {
    const account = await env.setUp();
    const setting = await heldApp(account.token, { managementPolicies: ["Observe", "Update", "Delete"] });
    const persons = await restartWithPersonsApp(withCondition("Ready", "False", "ExternalNotFound"), setting);
    await env.startOperator();
    await objects.patch("apps", "web", { spec: { managementPolicies: ["*"] } });
    await ownAppOnly(setting, persons);
  });

  it("refused by a SpendLimit", async () => {
    const account = await env.setUp();
    await objects.create("spendlimits", "team", { maxHourlyCost: "0.000001" });
    const setting = await heldApp(account.token);
    const persons = await restartWithPersonsApp(
      withCondition("Stalled", "True", "SpendLimitExceeded"),
      setting,
    );
    await env.startOperator();
    await objects.patch("spendlimits", "team", { spec: { maxHourlyCost: "100" } });
    await ownAppOnly(setting, persons);
  });
});
