import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { CoreV1Api, CustomObjectsApi, EventsV1Api, KubeConfig } from "@kubernetes/client-node";
import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { operatorNamespace, serviceAccount } from "../../scripts/deploy-manifests.ts";
import { group, version } from "../../src/api/index.ts";
import { installCrds } from "../../src/api/install.ts";
import { parseConfig } from "../../src/cli/command.ts";
import { commands } from "../../src/cli/run.ts";
import { type OperatorConfigInput, type RunningOperator, startOperator } from "../../src/operator/index.ts";
import { KubeClient, kubeEventSink, microTime } from "../../src/runtime/index.ts";
import { type RunningSimulator, startSimulator } from "../../src/simulator/index.ts";
import { createLogger } from "../../src/telemetry/logger.ts";
import { kubeConfig } from "../support/kube.ts";
import { applyForReal, deployPath, findObject, kubectl, type Manifest, render } from "./helpers.ts";

/**
 * The operator as the Deployment runs it (its flags, leader election in berth-system) but
 * authenticated as the operator's ServiceAccount under the shipped RBAC: anything it calls that
 * the generated role doesn't grant shows up as a stuck resource, a missing event or a 403 in its
 * log. It watches only this test's namespace so it never touches other tests' objects.
 */
const namespace = `deploy-${randomBytes(4).toString("hex")}`;
const admin = kubeConfig();
const logLines: string[] = [];
let simulator: RunningSimulator | undefined;
let operator: RunningOperator | undefined;
let asServiceAccount: KubeConfig;

interface Status {
  url?: string;
  conditions?: { type: string; status: string }[];
}

async function serviceAccountConfig(): Promise<KubeConfig> {
  const { stdout: token } = await kubectl(["create", "token", serviceAccount, "-n", operatorNamespace]);
  const cluster = admin.getCurrentCluster();
  if (cluster === null) throw new Error("the test kubeconfig has no current cluster");
  const config = new KubeConfig();
  config.loadFromOptions({
    clusters: [cluster],
    users: [{ name: serviceAccount, token: token.trim() }],
    contexts: [{ name: "operator", cluster: cluster.name, user: serviceAccount }],
    currentContext: "operator",
  });
  return config;
}

/** The Deployment's arguments, as `berth operator` parses them, narrowed to this test's namespace. */
function deployedConfig(deployment: Manifest) {
  const command = commands.find((c) => c.name === "operator");
  if (command === undefined) throw new Error("`berth operator` is not in src/cli/run.ts's commands");
  const spec = deployment.spec as { template: { spec: { containers: { args: string[] }[] } } };
  const args = (spec.template.spec.containers[0]?.args ?? []).map((arg) =>
    arg.replaceAll("$(POD_NAMESPACE)", operatorNamespace),
  );
  const overrides = [`--namespace=${namespace}`, "--metrics-addr=", "--health-addr=", "--log-level=warn"];
  // The command's config is the operator's input (the CLI validates it against the same schema).
  return parseConfig(command, [...args, ...overrides], {}) as OperatorConfigInput;
}

describe("the operator under the shipped RBAC", () => {
  beforeAll(async () => {
    const { objects } = await render("base");
    for (const kind of ["Namespace", "ServiceAccount"]) {
      await applyForReal(JSON.stringify(findObject(objects, kind)));
    }
    await applyForReal(await readFile(deployPath("base", "rbac.yaml"), "utf8"));
    await installCrds(admin);

    simulator = await startSimulator({ controlApi: true, clockSpeed: 20 });
    const user = simulator.sim.addUser({ email: `${namespace}@example.test`, balance: 1000 });
    const key = simulator.sim.addKey({ userId: user.id });
    const core = admin.makeApiClient(CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: namespace } } });
    await core.createNamespacedSecret({
      namespace,
      body: {
        metadata: { name: "berth-credentials" },
        stringData: { apiKey: key.token, baseUrl: simulator.baseUrl },
      },
    });

    asServiceAccount = await serviceAccountConfig();
    const destination = {
      write: (line: string) => logLines.push(line) !== 0,
    } as unknown as NodeJS.WritableStream;
    operator = await startOperator(deployedConfig(findObject(objects, "Deployment")), {
      logger: createLogger({ level: "warn", destination }),
      registry: new Registry(),
      kubeConfig: asServiceAccount,
    });
    await operator.ready;
  });

  afterAll(async () => {
    await operator?.stop();
    await simulator?.close();
    await admin
      .makeApiClient(CoreV1Api)
      .deleteNamespace({ name: namespace })
      .catch(() => undefined);
  });

  it("leads, reconciles a Project and an App end to end, records events, and is never refused", async () => {
    const custom = admin.makeApiClient(CustomObjectsApi);
    const api = { group, version, namespace };
    const readStatus = async (plural: string, name: string) =>
      ((await custom.getNamespacedCustomObject({ ...api, plural, name })) as { status?: Status }).status;
    const waitReady = async (plural: string, name: string) => {
      let status: Status | undefined;
      for (let attempt = 0; attempt < 300; attempt++) {
        status = await readStatus(plural, name);
        if (status?.conditions?.some((c) => c.type === "Ready" && c.status === "True")) break;
        await sleep(100);
      }
      expect(
        status?.conditions,
        `${plural}/${name} status: ${JSON.stringify(status)}\nlog:\n${logLines.join("")}`,
      ).toContainEqual(expect.objectContaining({ type: "Ready", status: "True" }));
    };

    await custom.createNamespacedCustomObject({
      ...api,
      plural: "projects",
      body: { apiVersion: `${group}/${version}`, kind: "Project", metadata: { name: "demo" }, spec: {} },
    });
    await waitReady("projects", "demo");

    // A secret env value makes the operator read a Secret, which the role must allow.
    await admin.makeApiClient(CoreV1Api).createNamespacedSecret({
      namespace,
      body: { metadata: { name: "web-secrets" }, stringData: { token: "s3cret" } },
    });
    await custom.createNamespacedCustomObject({
      ...api,
      plural: "apps",
      body: {
        apiVersion: `${group}/${version}`,
        kind: "App",
        metadata: { name: "web" },
        spec: {
          projectRef: { name: "demo" },
          image: "docker.io/library/nginx:1.27-alpine",
          ports: [{ port: 80, protocol: "http80_load_balancer" }],
          env: [{ name: "TOKEN", valueFrom: { secretKeyRef: { name: "web-secrets", key: "token" } } }],
        },
      },
    });
    await waitReady("apps", "web");
    expect((await readStatus("apps", "web"))?.url).toMatch(/^https:\/\//);

    // Deletion runs the finalizer path: stop, delete at the service, remove the finalizer.
    await custom.deleteNamespacedCustomObject({ ...api, plural: "apps", name: "web" });
    let gone = false;
    for (let attempt = 0; attempt < 300 && !gone; attempt++) {
      gone = await custom.getNamespacedCustomObject({ ...api, plural: "apps", name: "web" }).then(
        () => false,
        (error: { code?: number }) => error.code === 404,
      );
      if (!gone) await sleep(100);
    }
    expect(gone, `App not deleted; log:\n${logLines.join("")}`).toBe(true);

    const events = await admin.makeApiClient(EventsV1Api).listNamespacedEvent({ namespace });
    expect(events.items.map((event) => event.regarding?.name)).toEqual(
      expect.arrayContaining(["demo", "web"]),
    );

    const refusals = logLines.filter((line) => /forbidden|\b403\b/i.test(line));
    expect(refusals, "the operator was refused a call: add it to src/operator/permissions.ts").toEqual([]);
  });

  // The recorder counts repeats by patching the Event's series, which one Ready reconcile may never need.
  it("may patch an Event's series when an event repeats", async () => {
    const sink = kubeEventSink(new KubeClient(asServiceAccount));
    const name = `demo.${randomBytes(4).toString("hex")}`;
    await sink.create(namespace, {
      apiVersion: "events.k8s.io/v1",
      kind: "Event",
      metadata: { name, namespace },
      eventTime: microTime(Date.now()),
      reportingController: "berth.dev/operator",
      reportingInstance: "test",
      action: "Reconcile",
      reason: "Succeeded",
      note: "repeated",
      type: "Normal",
      regarding: { apiVersion: `${group}/${version}`, kind: "Project", name: "demo", namespace },
    });
    await sink.updateSeries(namespace, name, { count: 2, lastObservedTime: microTime(Date.now()) });
  });
});
