import { randomBytes } from "node:crypto";
import { CoreV1Api, CustomObjectsApi, EventsV1Api } from "@kubernetes/client-node";
import { Registry } from "prom-client";
import { afterAll, afterEach, beforeAll } from "vitest";
import type { App } from "../../src/api/app.ts";
import type { Condition } from "../../src/api/conditions.ts";
import { installCrds } from "../../src/api/install.ts";
import type { OperatorConfigInput } from "../../src/operator/config.ts";
import { type RunningOperator, startOperator } from "../../src/operator/index.ts";
import type { OperatorDeps } from "../../src/operator/operator.ts";
import { KubeClient, patchTypes } from "../../src/runtime/index.ts";
import { type RunningSimulator, type SimulatorOptions, startSimulator } from "../../src/simulator/index.ts";
import { createLogger } from "../../src/telemetry/logger.ts";
import { kubeConfig, unlessNotFound } from "../support/kube.ts";

/** Simulated seconds per real second: the default timings (start 3 s, build 8 s) become fractions of a second. */
export const clockSpeed = 20;

/** An approved ServerOrder of `count` small servers in the Grid `pool`, capped at `maxHourlyCost`. */
export function approvedOrder(count: number, maxHourlyCost = "1"): Record<string, unknown> {
  return {
    gridRefs: [{ name: "pool" }],
    csp: "native",
    region: "eu-central",
    zone: "eu-central-1a",
    instanceType: "native.small",
    count,
    approved: true,
    maxHourlyCost,
  };
}

/** Every operation that changes something at the service (tests count them from the request log). */
export const changingOperations = [
  "createProject",
  "renameProject",
  "deleteProject",
  "addProjectShare",
  "changeProjectShare",
  "removeProjectShare",
  "createApp",
  "updateApp",
  "startApp",
  "stopApp",
  "restartApp",
  "triggerBuild",
  "moveApp",
  "deleteApp",
  "createGrid",
  "deleteGrid",
  "provisionServers",
  "deprovisionServers",
  "powerServers",
  "replaceServer",
] as const;

/** Poll timings matched to the sped-up simulator. */
export const fastPolls = {
  startingMs: 300,
  wiringMs: 150,
  stoppingMs: 150,
  buildingMs: 300,
  waitingMs: 1500,
};

const group = "berth.dev";
const version = "v1alpha1";

export interface Account {
  userId: string;
  keyId: string;
  token: string;
}

/**
 * One simulator per test file, CRDs installed once, and per test: a fresh namespace with a
 * credentials Secret for a fresh simulator user, and an operator watching only that namespace.
 */
/** The simulator's own sample values accepted: for tests of fields whose names the spec doesn't show. */
export const withSamples: SimulatorOptions = { profile: { base: "harsh", sampleValues: true } };

export function useOperatorEnvironment(options: SimulatorOptions = {}) {
  const config = kubeConfig();
  const core = config.makeApiClient(CoreV1Api);
  const custom = config.makeApiClient(CustomObjectsApi);
  const events = config.makeApiClient(EventsV1Api);
  const kube = new KubeClient(config);
  let simulator: RunningSimulator | undefined;
  const operators: RunningOperator[] = [];
  const state = { namespace: "", account: undefined as Account | undefined };

  beforeAll(async () => {
    await installCrds(config);
    // The spec-strict simulator, as users get it: a test that sends what the spec doesn't show
    // (env, volumes, hardware, placement, a repository source, a port protocol) passes `withSamples`.
    simulator = await startSimulator({ controlApi: true, clockSpeed, profile: "harsh", ...options });
  });
  afterEach(async () => {
    await Promise.all(operators.splice(0).map((o) => o.stop()));
    sim().clearFaults();
    if (state.namespace !== "") await core.deleteNamespace({ name: state.namespace }).catch(() => undefined);
    state.namespace = "";
  });
  afterAll(async () => {
    await simulator?.close();
    await kube.close();
  });

  function sim() {
    if (simulator === undefined) throw new Error("simulator not started");
    return simulator.sim;
  }

  const env = {
    get sim() {
      return sim();
    },
    get baseUrl() {
      if (simulator === undefined) throw new Error("simulator not started");
      return simulator.baseUrl;
    },
    get namespace() {
      return state.namespace;
    },
    /** A namespace, a simulator user and key, and the `berth-credentials` Secret for it. */
    async setUp(key: { scopes?: string[]; projectIds?: string[]; balance?: number } = {}): Promise<Account> {
      state.namespace = `ctl-${randomBytes(4).toString("hex")}`;
      await core.createNamespace({ body: { metadata: { name: state.namespace } } });
      const user = sim().addUser({ email: `${state.namespace}@example.test`, balance: key.balance ?? 1000 });
      const created = sim().addKey({ userId: user.id, scopes: key.scopes, projectIds: key.projectIds });
      const account = { userId: user.id, keyId: created.id, token: created.token };
      await env.putSecret("berth-credentials", { apiKey: account.token, baseUrl: env.baseUrl });
      state.account = account;
      return account;
    },
    async putSecret(name: string, data: Record<string, string>): Promise<void> {
      const body = { metadata: { name, namespace: state.namespace }, stringData: data };
      try {
        await core.createNamespacedSecret({ namespace: state.namespace, body });
      } catch {
        await core.replaceNamespacedSecret({ name, namespace: state.namespace, body });
      }
    },
    /** The Secret's finalizers; undefined once it is gone (a 404); any other failure is thrown. */
    async secretFinalizers(name: string): Promise<string[] | undefined> {
      const secret = await unlessNotFound(core.readNamespacedSecret({ name, namespace: state.namespace }));
      return secret === undefined ? undefined : (secret.metadata?.finalizers ?? []);
    },
    /** Sets annotations on the Secret (a merge patch). */
    async annotateSecret(name: string, annotations: Record<string, string>): Promise<void> {
      const path = `/api/v1/namespaces/${state.namespace}/secrets/${name}`;
      await kube.call("PATCH", path, { body: { metadata: { annotations } }, contentType: patchTypes.merge });
    },
    /** Adds a finalizer to the Secret, as if a controller had put it there. */
    async addSecretFinalizer(name: string, finalizer: string): Promise<void> {
      const path = `/api/v1/namespaces/${state.namespace}/secrets/${name}`;
      await kube.call("PATCH", path, {
        body: { metadata: { finalizers: [finalizer] } },
        contentType: patchTypes.merge,
      });
    },
    async deleteSecret(name: string): Promise<void> {
      await core.deleteNamespacedSecret({ name, namespace: state.namespace });
    },
    async startOperator(
      extra: Partial<OperatorDeps> = {},
      driftInterval = "10m",
      overrides: Partial<OperatorConfigInput> = {},
    ): Promise<RunningOperator> {
      const operator = await startOperator(
        {
          namespaces: [state.namespace],
          metricsAddr: "",
          healthAddr: "",
          concurrency: 4,
          driftInterval,
          ...overrides,
        },
        {
          logger: createLogger({ level: process.env.BERTH_TEST_LOG ?? "silent" }),
          registry: new Registry(),
          kubeConfig: config,
          settings: { polls: fastPolls, stalledRetryMs: 2000 },
          ...extra,
        },
      );
      operators.push(operator);
      await operator.ready;
      return operator;
    },
    async create(plural: "apps" | "projects", name: string, spec: Record<string, unknown>, metadata = {}) {
      const kind = plural === "apps" ? "App" : "Project";
      return custom.createNamespacedCustomObject({
        group,
        version,
        plural,
        namespace: state.namespace,
        body: { apiVersion: `${group}/${version}`, kind, metadata: { name, ...metadata }, spec },
      });
    },
    /** Sets (a string) or removes (null) annotations on this test's Namespace. */
    async annotateNamespace(annotations: Record<string, string | null>): Promise<void> {
      const path = `/api/v1/namespaces/${state.namespace}`;
      await kube.call("PATCH", path, { body: { metadata: { annotations } }, contentType: patchTypes.merge });
    },
    /** A JSON merge patch of the object. */
    async patch(plural: "apps" | "projects", name: string, body: Record<string, unknown>) {
      const path = `/apis/${group}/${version}/namespaces/${state.namespace}/${plural}/${name}`;
      return kube.call("PATCH", path, { body, contentType: patchTypes.merge });
    },
    async remove(plural: "apps" | "projects", name: string) {
      await custom.deleteNamespacedCustomObject({ group, version, plural, namespace: state.namespace, name });
    },
    /** The object, or undefined once it is gone (a 404); any other failure is thrown. */
    async get(plural: "apps" | "projects", name: string): Promise<App | undefined> {
      const read = custom.getNamespacedCustomObject({
        group,
        version,
        plural,
        namespace: state.namespace,
        name,
      });
      return (await unlessNotFound(read)) as App | undefined;
    },
    /** Waits until `test` holds for the object, returning it; fails with its last status otherwise. */
    async waitFor(
      plural: "apps" | "projects",
      name: string,
      test: (object: App | undefined) => boolean,
      timeoutMs = 20_000,
    ): Promise<App | undefined> {
      const deadline = Date.now() + timeoutMs;
      let last: App | undefined;
      for (;;) {
        last = await env.get(plural, name);
        if (test(last)) return last;
        if (Date.now() > deadline) {
          throw new Error(
            `${plural}/${name} did not reach the expected state; last status: ${JSON.stringify(last?.status)}`,
          );
        }
        await sleep(100);
      }
    },
    /** Waits until an event with this reason was recorded about the object. */
    async waitForEvent(name: string, reason: string): Promise<void> {
      await until(
        async () => (await env.eventReasons(name)).includes(reason),
        `event ${reason} about ${name}`,
      );
    },
    /** Reasons of the events recorded about an object. */
    async eventReasons(name: string): Promise<string[]> {
      const list = await events.listNamespacedEvent({ namespace: state.namespace });
      return list.items.filter((e) => e.regarding?.name === name).map((e) => e.reason ?? "");
    },
    /** Notes of the events with this reason recorded about an object. */
    async eventNotes(name: string, reason: string): Promise<string[]> {
      const list = await events.listNamespacedEvent({ namespace: state.namespace });
      return list.items
        .filter((e) => e.regarding?.name === name && e.reason === reason)
        .map((e) => e.note ?? "");
    },
    /** Times an event with this reason was recorded about an object: repeats of one note fold into its series. */
    async eventCount(name: string, reason: string): Promise<number> {
      const list = await events.listNamespacedEvent({ namespace: state.namespace });
      return list.items
        .filter((e) => e.regarding?.name === name && e.reason === reason)
        .reduce((sum, e) => sum + (e.series?.count ?? 1), 0);
    },
    /** Whether the injected fault `id` has hit as many requests as its `times` said. */
    faultSpent(id: string): boolean {
      return sim()
        .spentFaults()
        .some((f) => f.id === id);
    },
    /**
     * The operator with writes timing out after 1.5 s (the client's 30 s, scaled down): a call the
     * service holds longer has an unknown outcome.
     */
    startWithShortWrites(): Promise<RunningOperator> {
      return env.startOperator({
        hosting: { timeoutsMs: { write: 1500 } },
        settings: { polls: fastPolls, stalledRetryMs: 2000 },
      });
    },
    /** Creates a Project and waits for its project at the service: the project's ID. */
    async createdProject(name: string): Promise<string> {
      await env.create("projects", name, {});
      const project = await env.waitFor("projects", name, (o) => o?.status?.projectId !== undefined, 40_000);
      return String(project?.status?.projectId);
    },
    /** Waits until a held call reached the service (its fault hit): when it did, in wall-clock ms. */
    async heldCall(fault: string, what: string): Promise<number> {
      const since = Date.now();
      while (!env.faultSpent(fault)) {
        if (Date.now() - since > 30_000) throw new Error(`${what} never reached the service`);
        await sleep(50);
      }
      return Date.now();
    },
    /** Requests the simulator saw with this test's key (optionally one operation). */
    requests(operation?: string) {
      const keyId = state.account?.keyId;
      return sim()
        .requests(operation === undefined ? {} : { operation })
        .filter((r) => r.keyId === keyId);
    },
  };
  return env;
}

export function condition(object: App | undefined, type: string): Condition | undefined {
  return object?.status?.conditions?.find((c) => c.type === type);
}

export function hasCondition(type: string, status: "True" | "False" | "Unknown" = "True", reason?: string) {
  return (object: App | undefined) => {
    const found = condition(object, type);
    return found?.status === status && (reason === undefined || found.reason === reason);
  };
}

/** Waits until `test` holds (checked every 100 ms). */
export async function until(
  test: () => boolean | Promise<boolean>,
  what = "condition",
  timeoutMs = 20_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await test())) {
    if (Date.now() > deadline) throw new Error(`${what} not met within ${timeoutMs} ms`);
    await sleep(100);
  }
}

/** Reconciles the operator finished for `controller` ("app", "project", "grid", "serverorder"), from its registry. */
export async function reconciles(registry: Registry, controller: string): Promise<number> {
  const metric = await registry.getSingleMetric("controller_runtime_reconcile_total")?.get();
  return (metric?.values ?? [])
    .filter((v) => v.labels.controller === controller)
    .reduce((sum, v) => sum + v.value, 0);
}

/** Waits until the operator finished `count` more reconciles of `controller` than `from`. */
export async function reconciledMore(
  registry: Registry,
  controller: string,
  from: number,
  count = 1,
): Promise<void> {
  await until(
    async () => (await reconciles(registry, controller)) >= from + count,
    `${count} more ${controller} reconciles`,
    30_000,
  );
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
