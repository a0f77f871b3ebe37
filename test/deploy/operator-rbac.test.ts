import { randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import {
  CoreV1Api,
  CustomObjectsApi,
  EventsV1Api,
  KubeConfig,
  PatchStrategy,
  setHeaderOptions,
} from "@kubernetes/client-node";
import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { operatorNamespace, serviceAccount } from "../../scripts/deploy-manifests.ts";
import { group, version } from "../../src/api/index.ts";
import { installCrds } from "../../src/api/install.ts";
import { parseConfig } from "../../src/cli/command.ts";
import { findCommand } from "../../src/cli/run.ts";
import { type OperatorConfigInput, type RunningOperator, startOperator } from "../../src/operator/index.ts";
import { KubeClient, kubeEventSink, microTime } from "../../src/runtime/index.ts";
import { type RunningSimulator, startSimulator } from "../../src/simulator/index.ts";
import { createLogger } from "../../src/telemetry/logger.ts";
import { kubeConfig, unlessNotFound } from "../support/kube.ts";
import {
  applyForReal,
  findObject,
  type Manifest,
  render,
  renderInNamespace,
  scrape,
  serviceAccountToken,
} from "./helpers.ts";

/**
 * The operator as the Deployment runs it (its flags, leader election, secure metrics) but
 * authenticated as the operator's ServiceAccount under the shipped RBAC: anything it calls that
 * the generated roles don't grant shows up as a stuck resource, a missing event, a 403 in its log
 * or a metrics endpoint that can't check tokens. Cluster-wide it watches only this test's
 * namespace, so it never touches other tests' objects; namespaced, it is installed into its own.
 */
interface Install {
  title: string;
  /** Where the ServiceAccount, its Lease and (namespaced) everything else lives. */
  operatorNamespace: (watched: string) => string;
  /** The install's objects, in the operator namespace. */
  objects: (operatorNamespace: string) => Promise<Manifest[]>;
  /** Flags the test adds to the Deployment's: a watched namespace for the cluster-wide install. */
  extraArgs: (watched: string) => string[];
}

const installs: Install[] = [
  {
    title: "cluster-wide (deploy/base)",
    operatorNamespace: () => operatorNamespace,
    objects: async () => (await render("base")).objects,
    extraArgs: (watched) => [`--namespace=${watched}`],
  },
  {
    title: "namespaced (deploy/overlays/namespaced, a Role)",
    operatorNamespace: (watched) => watched,
    objects: (namespace) => renderInNamespace("overlays/namespaced", namespace),
    extraArgs: () => [],
  },
];

const rbacKinds = ["ServiceAccount", "Role", "RoleBinding", "ClusterRole", "ClusterRoleBinding"];
const admin = kubeConfig();

interface Status {
  url?: string;
  conditions?: { type: string; status: string }[];
}

async function serviceAccountConfig(namespace: string): Promise<KubeConfig> {
  const token = await serviceAccountToken(namespace, serviceAccount);
  const cluster = admin.getCurrentCluster();
  if (cluster === null) throw new Error("the test kubeconfig has no current cluster");
  const config = new KubeConfig();
  config.loadFromOptions({
    clusters: [cluster],
    users: [{ name: serviceAccount, token }],
    contexts: [{ name: "operator", cluster: cluster.name, user: serviceAccount }],
    currentContext: "operator",
  });
  return config;
}

/** The Deployment's arguments, as `berth operator` parses them, with the test's own additions. */
async function deployedConfig(deployment: Manifest, podNamespace: string, extra: string[]) {
  const command = await findCommand("operator");
  if (command === undefined) throw new Error("`berth operator` is not in src/cli/run.ts's commands");
  const spec = deployment.spec as { template: { spec: { containers: { args: string[] }[] } } };
  const args = (spec.template.spec.containers[0]?.args ?? []).map((arg) =>
    arg.replaceAll("$(POD_NAMESPACE)", podNamespace),
  );
  const overrides = [...extra, "--metrics-addr=127.0.0.1:0", "--health-addr=", "--log-level=warn"];
  // The command's config is the operator's input (the CLI validates it against the same schema).
  return parseConfig(command, [...args, ...overrides], {}) as OperatorConfigInput;
}

describe.each(installs)("the operator under the shipped RBAC, $title", (install) => {
  const namespace = `deploy-${randomBytes(4).toString("hex")}`;
  const home = install.operatorNamespace(namespace);
  const logLines: string[] = [];
  let simulator: RunningSimulator | undefined;
  let operator: RunningOperator | undefined;
  let asServiceAccount: KubeConfig;

  beforeAll(async () => {
    const core = admin.makeApiClient(CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: namespace } } });
    const objects = await install.objects(home);
    const namespaceObject = objects.find((o) => o.kind === "Namespace");
    if (namespaceObject !== undefined) await applyForReal(JSON.stringify(namespaceObject));
    for (const object of objects.filter((o) => rbacKinds.includes(o.kind))) {
      await applyForReal(JSON.stringify(object));
    }
    await installCrds(admin);

    // Lenient: this test is about permissions; the controllers' tests face the harsh simulator.
    // The app below sends env, whose field names the spec does not show: sampleValues accepts them.
    simulator = await startSimulator({
      controlApi: true,
      clockSpeed: 20,
      profile: { base: "harsh", sampleValues: true },
    });
    const user = simulator.sim.addUser({ email: `${namespace}@example.test`, balance: 1000 });
    const key = simulator.sim.addKey({ userId: user.id });
    await core.createNamespacedSecret({
      namespace,
      body: {
        metadata: { name: "berth-credentials" },
        stringData: { apiKey: key.token, baseUrl: simulator.baseUrl },
      },
    });

    asServiceAccount = await serviceAccountConfig(home);
    const destination = {
      write: (line: string) => logLines.push(line) !== 0,
    } as unknown as NodeJS.WritableStream;
    const deployment = findObject(objects, "Deployment");
    operator = await startOperator(await deployedConfig(deployment, home, install.extraArgs(namespace)), {
      logger: createLogger({ level: "warn", destination }),
      registry: new Registry(),
      kubeConfig: asServiceAccount,
      // A 403 while the apiserver's RBAC cache catches up with a new binding is not kept (else 30 s).
      metricsReviewCache: { denyTtlMs: 0 },
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
          // Outputs make the operator read, write and (on a rename) delete a ConfigMap.
          outputs: { configMapName: "web-outputs" },
        },
      },
    });
    await waitReady("apps", "web");
    expect((await readStatus("apps", "web"))?.url).toMatch(/^https:\/\//);
    const core = admin.makeApiClient(CoreV1Api);
    const configMap = (name: string) => unlessNotFound(core.readNamespacedConfigMap({ namespace, name }));
    const waitFor = async (what: string, test: () => Promise<boolean>) => {
      for (let attempt = 0; attempt < 300 && !(await test()); attempt++) await sleep(100);
      expect(await test(), `${what}; log:\n${logLines.join("")}`).toBe(true);
    };
    const url = (await readStatus("apps", "web"))?.url;
    await waitFor("outputs written", async () => (await configMap("web-outputs"))?.data?.url === url);
    await custom.patchNamespacedCustomObject(
      {
        ...api,
        plural: "apps",
        name: "web",
        body: { spec: { outputs: { configMapName: "web-endpoints" } } },
      },
      setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
    );
    await waitFor("outputs moved", async () => (await configMap("web-endpoints"))?.data?.url === url);
    await waitFor("old outputs deleted", async () => (await configMap("web-outputs")) === undefined);

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

  it("serves /metrics over HTTPS to an allowed token only: 200, 403 without the role, 401 without a token", async () => {
    const url = `https://${operator?.addresses.metrics}/metrics`;
    const core = admin.makeApiClient(CoreV1Api);
    for (const name of ["metrics-reader", "stranger"]) {
      await core.createNamespacedServiceAccount({ namespace, body: { metadata: { name } } });
    }
    await applyForReal(
      JSON.stringify({
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "ClusterRoleBinding",
        metadata: { name: `berth-metrics-reader-${namespace}` },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "berth-metrics-reader" },
        subjects: [{ kind: "ServiceAccount", name: "metrics-reader", namespace }],
      }),
    );
    const reader = await serviceAccountToken(namespace, "metrics-reader");
    // The RBAC authorizer reads bindings from a cache: the new one may take a moment.
    let allowed = await scrape(url, reader);
    for (let attempt = 0; attempt < 50 && allowed.status === 403; attempt++) {
      await sleep(100);
      allowed = await scrape(url, reader);
    }
    expect(allowed.status, allowed.body).toBe(200);
    expect(allowed.body).toContain("controller_runtime_reconcile_total");
    // berth_resources counts berth's kinds, never the Secrets the credentials controller watches.
    expect(allowed.body).not.toMatch(/berth_resources\{kind="Secret"/);
    expect((await scrape(url, await serviceAccountToken(namespace, "stranger"))).status).toBe(403);
    expect((await scrape(url)).status).toBe(401);
    expect((await scrape(url, "not-a-token")).status).toBe(401);
    expect((await scrape(url.replace("https:", "http:")).catch(() => ({ status: 0 }))).status).not.toBe(200);
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
