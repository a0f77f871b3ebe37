import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { CoreV1Api, EventsV1Api, KubeConfig } from "@kubernetes/client-node";
import { Registry } from "prom-client";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { group, kinds } from "../../src/api/index.ts";
import { installCrds } from "../../src/api/install.ts";
import type { Inventory } from "../../src/cli/import/manifests.ts";
import { readInventory } from "../../src/cli/import/read.ts";
import { runCli } from "../../src/cli/run.ts";
import { type ControlPlane, startControlPlane } from "../../src/control-plane/control-plane.ts";
import { createHostingClient } from "../../src/hosting/index.ts";
import { type RunningOperator, startOperator } from "../../src/operator/index.ts";
import { type RunningSimulator, startSimulator } from "../../src/simulator/index.ts";
import { createLogger } from "../../src/telemetry/logger.ts";
import { approvedOrder, fastPolls } from "../controllers/support.ts";
import { type Output, render, run } from "../deploy/helpers.ts";

/**
 * Removing berth never deletes what it managed: the CRDs deleted while the operator runs (what
 * `kubectl delete -k` of an install does) release every resource without a call, and `berth
 * uninstall` removes the resources, the operator and the CRDs leaving every external object
 * running (or, with --delete-external, deletes them first on purpose). On a control plane of its
 * own: deleting the CRDs would take them from every other test file of the run.
 */
let cluster: ControlPlane;
let dir = "";
let config: KubeConfig;
let simulator: RunningSimulator;
let operator: RunningOperator | undefined;
const crdNames = kinds.map((kind) => `${kind.names.plural}.${group}`);
/** Calls that stop or remove something at the service. */
const destructive = ["stopApp", "deleteApp", "deleteProject", "deleteGrid", "deprovisionServers"];

const kubectl = (args: string[], input?: string): Promise<Output> =>
  run("kubectl", ["--kubeconfig", cluster.kubeconfigPath, ...args], { input });

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "berth-uninstall-"));
  cluster = await startControlPlane({ dir, logger: createLogger({ level: "warn" }) });
  config = new KubeConfig();
  config.loadFromFile(cluster.kubeconfigPath);
  simulator = await startSimulator({ controlApi: true, clockSpeed: 20, profile: "harsh" });
}, 180_000);

afterEach(async () => {
  await operator?.stop();
  operator = undefined;
});

afterAll(async () => {
  await simulator?.close();
  await cluster?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

interface Estate {
  namespace: string;
  keyId: string;
  /** What the account holds at the service once every resource is Ready. */
  before: Inventory;
  inventory(): Promise<Inventory>;
  destructiveCalls(): string[];
}

/** CRDs, a running operator, and a Project, an App, a Grid and a ServerOrder made Ready. */
async function readyEstate(): Promise<Estate> {
  await installCrds(config);
  const namespace = `estate-${randomBytes(3).toString("hex")}`;
  const user = simulator.sim.addUser({ email: `${namespace}@example.test`, balance: 1000 });
  const key = simulator.sim.addKey({ userId: user.id });
  await config.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: namespace } } });
  await kubectl(
    ["-n", namespace, "create", "secret", "generic", "berth-credentials"].concat(
      `--from-literal=apiKey=${key.token}`,
      `--from-literal=baseUrl=${simulator.baseUrl}`,
    ),
  );
  operator = await startOperator(
    { namespaces: [namespace], metricsAddr: "", healthAddr: "", concurrency: 4 },
    {
      logger: createLogger({ level: process.env.BERTH_TEST_LOG ?? "silent" }),
      registry: new Registry(),
      kubeConfig: config,
      settings: { polls: fastPolls, stalledRetryMs: 2000 },
    },
  );
  await operator.ready;
  const resource = (kind: string, name: string, spec: Record<string, unknown>) => ({
    apiVersion: `${group}/v1alpha1`,
    kind,
    metadata: { name, namespace },
    spec,
  });
  const objects = [
    resource("Project", "shop", {}),
    resource("App", "web", { projectRef: { name: "shop" }, image: "docker.io/library/nginx:1.27-alpine" }),
    resource("Grid", "pool", {}),
    resource("ServerOrder", "batch", approvedOrder(1)),
  ];
  await kubectl(["apply", "-f", "-"], objects.map((o) => stringify(o)).join("---\n"));
  await kubectl(
    ["-n", namespace, "wait", "--for=condition=Ready", "--timeout=120s"].concat(
      "projects.berth.dev/shop",
      "apps.berth.dev/web",
      "grids.berth.dev/pool",
      "serverorders.berth.dev/batch",
    ),
  );
  const client = createHostingClient({ baseUrl: simulator.baseUrl, apiKey: key.token });
  const inventory = async () => readInventory(client);
  return {
    namespace,
    keyId: key.id,
    before: await inventory(),
    inventory,
    destructiveCalls: () =>
      simulator.sim
        .requests()
        .filter((r) => r.keyId === key.id && destructive.includes(r.operation ?? ""))
        .map((r) => `${r.method} ${r.path}`),
  };
}

/** The estate's objects at the service and their states, for comparing before and after. */
function states(inventory: Inventory): Record<string, string> {
  return Object.fromEntries([
    ...inventory.projects.map(({ project }) => [`project ${project.id}`, "exists"]),
    ...inventory.projects.flatMap(({ apps }) => apps.map((app) => [`app ${app.id}`, app.state])),
    ...inventory.grids.map((grid) => [`grid ${grid.id}`, "exists"]),
    ...inventory.orders.flatMap(({ servers }) => servers.map((s) => [`server ${s.address}`, s.state])),
  ]);
}

async function orphanedEvents(namespace: string): Promise<Record<string, string>> {
  const events = await config.makeApiClient(EventsV1Api).listNamespacedEvent({ namespace });
  return Object.fromEntries(
    events.items
      .filter((e) => e.reason === "Orphaned")
      .map((e) => [`${e.regarding?.kind}/${e.regarding?.name}`, e.note ?? ""]),
  );
}

async function crdsLeft(): Promise<string> {
  return (await kubectl(["get", "crd", "-o", "name", "--ignore-not-found", ...crdNames])).stdout.trim();
}

describe("the berth CRDs deleted while the operator runs", () => {
  it("release every resource without a call: everything at the service stays, each release an event", async () => {
    const estate = await readyEstate();
    expect(Object.keys(states(estate.before))).toHaveLength(4);
    // What `kubectl delete -k deploy/overlays/default` does to them; returns once the CRDs are gone,
    // which needs the operator to have released every resource.
    await kubectl(["delete", "crd", ...crdNames, "--timeout=120s"]);
    expect(await crdsLeft()).toBe("");
    expect(estate.destructiveCalls()).toEqual([]);
    expect(states(await estate.inventory())).toEqual(states(estate.before));
    const why = (crd: string) => `(its CRD ${crd} is being deleted: berth is being removed)`;
    expect(await orphanedEvents(estate.namespace)).toEqual({
      "Project/shop": `left the project at the service ${why("projects.berth.dev")}`,
      "App/web": `left the app at the service ${why("apps.berth.dev")}`,
      "Grid/pool": `left the grid at the service ${why("grids.berth.dev")}`,
      "ServerOrder/batch": `left the order at the service ${why("serverorders.berth.dev")}`,
    });
  }, 240_000);
});

/** `berth uninstall` in this process, its exit code and output. */
async function berthUninstall(...flags: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const context = {
    stdout: { write: (text: string) => out.push(text) > 0 },
    stderr: { write: (text: string) => err.push(text) > 0 },
  } as unknown as { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream };
  const code = await runCli(
    ["uninstall", `--kubeconfig=${cluster.kubeconfigPath}`, "--timeout=2m", ...flags],
    {},
    context,
  );
  return { code, stdout: out.join(""), stderr: err.join("") };
}

/** The kustomize install's operator objects (no pods run on this control plane: no kubelet). */
async function applyOperatorObjects(): Promise<void> {
  const { objects } = await render("overlays/default");
  const operatorObjects = objects.filter((o) => o.kind !== "CustomResourceDefinition");
  await kubectl(
    ["apply", "--server-side", "-f", "-"],
    operatorObjects.map((o) => stringify(o)).join("---\n"),
  );
}

async function operatorObjectsLeft(): Promise<string> {
  const kinds =
    "deployments,services,poddisruptionbudgets,serviceaccounts,roles,rolebindings,clusterroles,clusterrolebindings";
  return (
    await kubectl(["get", kinds, "-A", "-l", "app.kubernetes.io/part-of=berth", "-o", "name"])
  ).stdout.trim();
}

describe("berth uninstall", () => {
  it("removes the resources, the operator and the CRDs, leaving every external object running and listing it", async () => {
    const estate = await readyEstate();
    await applyOperatorObjects();
    expect(await operatorObjectsLeft()).not.toBe("");
    const result = await berthUninstall();
    expect(result.code, result.stderr).toBe(0);
    expect(await crdsLeft()).toBe("");
    expect(await operatorObjectsLeft()).toBe("");
    expect(estate.destructiveCalls()).toEqual([]);
    const after = states(await estate.inventory());
    expect(after).toEqual(states(estate.before));
    const listed = result.stdout.split("\n");
    expect(listed[0]).toBe("left running at the service (berth no longer manages them):");
    for (const external of Object.keys(after)) expect(result.stdout).toContain(external);
  }, 300_000);

  it("with --delete-external, deletes every resource first while the operator runs, then removes berth", async () => {
    const estate = await readyEstate();
    await applyOperatorObjects();
    const result = await berthUninstall("--delete-external");
    expect(result.code, result.stderr).toBe(0);
    expect(await crdsLeft()).toBe("");
    expect(await operatorObjectsLeft()).toBe("");
    expect(result.stdout.split("\n")[0]).toBe("deleted at the service:");
    const operations = new Set(
      simulator.sim
        .requests()
        .filter((r) => r.keyId === estate.keyId && r.status < 300)
        .map((r) => r.operation),
    );
    for (const operation of ["deleteApp", "deleteProject", "deleteGrid", "deprovisionServers"]) {
      expect(operations, operation).toContain(operation);
    }
    const after = await estate.inventory();
    expect(after.projects).toEqual([]);
    expect(after.grids).toEqual([]);
  }, 300_000);
});
