import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { CoreV1Api, KubeConfig } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ControlPlane, startControlPlane } from "../../src/control-plane/control-plane.ts";
import { type RunningSimulator, startSimulator } from "../../src/simulator/index.ts";
import { createLogger } from "../../src/telemetry/logger.ts";
import { type BerthObject, type BerthPlural, berthObjects, withCondition } from "../support/berth-objects.ts";
import { type OperatorProcess, plainLines, spawnOperator } from "../support/operator-process.ts";
import { previousReleaseTree } from "../support/previous-release.ts";
import { serviceHttp } from "../support/service-http.ts";

/**
 * An upgrade as a platform team makes one, from the previous release to this one, with calls in
 * flight when the old operator's pod dies: an App's create, a ServerOrder's order and an App's
 * move each reach the service and are held there until the old operator is gone (SIGKILL), then
 * act with their answers lost. The new operator first refuses the old CRDs; once they are updated
 * it must find what each call did, converge, and create nothing twice.
 */
const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
const speed = 20;
/** How long the service holds each call before it acts: the old operator is killed meanwhile. */
const holdMs = 12_000;
/** An order takes 10 s (wall clock) to deliver: still provisioning when the new operator takes over. */
const orderSeconds = 200;
const crdNames = ["projects", "apps", "grids", "serverorders"].map((plural) => `${plural}.berth.dev`);
const heldOperations = ["createApp", "provisionServers", "moveApp"];
const settledFirst: [BerthPlural, string][] = [
  ["projects", "alpha"],
  ["projects", "beta"],
  ["grids", "pool"],
  ["apps", "mover"],
];
const inFlight: [BerthPlural, string][] = [
  ["apps", "fresh"],
  ["serverorders", "batch"],
];
const image = { image: "nginx:1.27" };

interface ServiceItem {
  id: string;
  state?: string;
  servers?: string[];
}

/** Current in the kstatus sense: Ready True and nothing in progress or stalled, for this generation. */
function current(object: BerthObject | undefined): boolean {
  const generation = object?.metadata.generation;
  const conditions = object?.status?.conditions ?? [];
  const ready = conditions.find((c) => c.type === "Ready");
  return (
    object?.status?.observedGeneration === generation &&
    ready?.status === "True" &&
    (ready.observedGeneration === undefined || ready.observedGeneration === generation) &&
    !conditions.some((c) => (c.type === "Reconciling" || c.type === "Stalled") && c.status === "True")
  );
}

describe("upgrading from the previous release with calls in flight", () => {
  const namespace = `upgrade-${randomBytes(4).toString("hex")}`;
  let dir = "";
  let previous = "";
  let cluster: ControlPlane | undefined;
  let simulator: RunningSimulator | undefined;
  const operators: OperatorProcess[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "berth-upgrade-"));
    // Its own control plane: the shared one holds this release's CRDs for the other tests.
    [previous, cluster, simulator] = await Promise.all([
      previousReleaseTree(),
      startControlPlane({ dir: path.join(dir, "cluster"), logger: createLogger({ level: "warn" }) }),
      startSimulator({ clockSpeed: speed, profile: { base: "harsh", sampleValues: true } }),
    ]);
  }, 240_000);

  afterAll(async () => {
    for (const operator of operators) operator.kill("SIGKILL");
    await Promise.all(operators.map((operator) => operator.exited));
    await simulator?.close();
    await cluster?.stop();
    if (dir !== "") await rm(dir, { recursive: true, force: true });
  });

  /** The cluster, the service and the operators of the scenario, with what each step needs. */
  function setting() {
    if (cluster === undefined || simulator === undefined) throw new Error("set-up failed");
    const { sim, baseUrl } = simulator;
    const kubeconfig = cluster.kubeconfigPath;
    const config = new KubeConfig();
    config.loadFromFile(kubeconfig);
    const core = config.makeApiClient(CoreV1Api);
    const objects = berthObjects(config, () => namespace);
    const user = sim.addUser({ email: `${namespace}@example.test`, balance: 1000 });
    const key = sim.addKey({ userId: user.id });
    return {
      sim,
      objects,
      key,
      service: serviceHttp(baseUrl, key.token),
      async start() {
        await core.createNamespace({ body: { metadata: { name: namespace } } });
        await core.createNamespacedSecret({
          namespace,
          body: { metadata: { name: "berth-credentials" }, stringData: { apiKey: key.token, baseUrl } },
        });
      },
      async kubectl(...args: string[]) {
        await promisify(execFile)("kubectl", ["--kubeconfig", kubeconfig, ...args]).catch(
          (error: unknown) => {
            throw new Error(`kubectl ${args.join(" ")}: ${(error as { stderr?: string }).stderr ?? error}`);
          },
        );
      },
      /** `berth operator` of a release's sources, for the test's namespace. */
      operator(release: string) {
        const main = path.join(release, "src", "main.ts");
        const started = spawnOperator(main, ["--kubeconfig", kubeconfig, "--namespace", namespace]);
        operators.push(started);
        return started;
      },
      /** This key's requests of one operation, as the service logged them. */
      requests(operation?: string) {
        return sim.requests(operation === undefined ? {} : { operation }).filter((r) => r.keyId === key.id);
      },
      /** Waits for every named object; on failure says what the operators wrote last. */
      async waitAll(
        named: [BerthPlural, string][],
        test: (o: BerthObject | undefined) => boolean,
        ms: number,
      ) {
        try {
          await Promise.all(named.map(([plural, name]) => objects.waitFor(plural, name, test, ms)));
        } catch (error) {
          const logs = operators.map((o, i) => `--- operator ${i}:\n${o.output().slice(-3000)}`);
          throw new Error(`${(error as Error).message}\n${logs.join("\n")}`);
        }
      },
    };
  }
  type Setting = ReturnType<typeof setting>;

  /** What the previous release settled: the projects' and the moving app's IDs. */
  async function settleUnderPrevious(s: Setting) {
    await s.objects.create("projects", "alpha", {});
    await s.objects.create("projects", "beta", {});
    await s.objects.create("grids", "pool", {});
    await s.objects.create("apps", "mover", { projectRef: { name: "alpha" }, ...image });
    await s.waitAll(settledFirst, withCondition("Ready"), 60_000);
    const status = async (plural: BerthPlural, name: string) => (await s.objects.get(plural, name))?.status;
    return {
      alphaId: (await status("projects", "alpha"))?.projectId,
      betaId: (await status("projects", "beta"))?.projectId,
      moverId: (await status("apps", "mover"))?.appId,
    };
  }

  /** Starts the create, the order and the move, holds each at the service, and kills the old operator. */
  async function killWithCallsInFlight(s: Setting, old: OperatorProcess) {
    s.sim.setTimings({ order: orderSeconds });
    const hold = { latencyMs: holdMs, dropResponse: true, times: 1 } as const;
    const holds = [
      s.sim.injectFault({ operation: "createApp", ...hold }),
      // The second provisionServers call: the dry run right before the order goes through.
      s.sim.injectFault({ operation: "provisionServers", skip: 1, ...hold }),
      s.sim.injectFault({ operation: "moveApp", ...hold }),
    ];
    await s.objects.create("serverorders", "batch", {
      gridRefs: [{ name: "pool" }],
      csp: "native",
      region: "eu-central",
      zone: "eu-central-1a",
      instanceType: "native.small",
      count: 2,
      approved: true,
      maxHourlyCost: "10",
    });
    await s.objects.create("apps", "fresh", { projectRef: { name: "alpha" }, ...image });
    await s.objects.patch("apps", "mover", { spec: { projectRef: { name: "beta" } } });
    const hits = (id: string) =>
      [...s.sim.faults(), ...s.sim.spentFaults()].find((f) => f.id === id)?.hits ?? 0;
    await until(
      () => holds.every((id) => hits(id) === 1),
      "the three calls held at the service",
      holdMs - 2000,
    );
    old.kill("SIGKILL");
    await old.exited;
    const acted = (operation: string) => s.requests(operation).filter((r) => r.dropped);
    await until(
      () => heldOperations.every((op) => acted(op).length === 1),
      "the held calls to act",
      holdMs + 5000,
    );
    expect(acted("provisionServers")[0]?.status, "the held call is the real order").toBe(202);
  }

  it("refuses the old CRDs, then converges with each resource's object made once", async () => {
    const s = setting();
    const { objects } = s;

    // The previous release, installed as its README says.
    await s.kubectl("apply", "--server-side", "-f", path.join(previous, "crds"));
    await s.kubectl(
      "wait",
      "--for=condition=Established",
      "--timeout=30s",
      ...crdNames.map((n) => `crd/${n}`),
    );
    await s.start();
    const old = s.operator(previous);
    const { alphaId, betaId, moverId } = await settleUnderPrevious(s);
    await killWithCallsInFlight(s, old);

    // The service did each call; the old operator recorded none of them, and the servers are not up.
    expect((await objects.get("apps", "fresh"))?.status?.appId).toBeUndefined();
    expect((await objects.get("serverorders", "batch"))?.status).toMatchObject({ phase: "Ordering" });
    expect((await objects.get("serverorders", "batch"))?.status?.orderId).toBeUndefined();
    expect((await objects.get("apps", "mover"))?.status?.projectId).toBe(alphaId);
    expect((await s.service.items<ServiceItem>("/servers/orders")).map((o) => o.servers)).toEqual([[]]);

    // This release on the old CRDs: one line naming what is missing (the SpendLimit CRD is new) and
    // the fix, which also updates the old ones; nothing touched.
    const everything = [...settledFirst, ...inFlight];
    const metadata = async () =>
      JSON.stringify(
        await Promise.all(everything.map(async ([p, n]) => (await objects.get(p, n))?.metadata)),
      );
    const before = { calls: s.requests().length, metadata: await metadata() };
    const refused = s.operator(repoRoot);
    expect(await refused.exited, refused.output()).toBe(1);
    const lines = plainLines(refused.stderr());
    expect(lines, refused.output()).toHaveLength(1);
    expect(lines[0]).toContain("spendlimits.berth.dev are not installed");
    expect(lines[0]).toContain("kubectl apply --server-side -f crds/");
    expect(s.requests()).toHaveLength(before.calls);
    expect(await metadata()).toBe(before.metadata);

    // The upgrade: this release's CRDs, with the command the line names, then its operator.
    await s.kubectl("apply", "--server-side", "-f", path.join(repoRoot, "crds"));
    s.sim.clearFaults();
    s.operator(repoRoot);
    await s.waitAll(everything, current, 90_000);

    // At the service: each resource's object once, where its spec says.
    const ids = async (list: string) => (await s.service.items<ServiceItem>(list)).map((i) => i.id).sort();
    const status = async (plural: BerthPlural, name: string) =>
      (await objects.get(plural, name))?.status ?? {};
    expect(await ids("/projects")).toEqual([alphaId, betaId].sort());
    expect(await ids("/grids")).toEqual([(await status("grids", "pool")).gridId]);
    expect(await ids(`/projects/${alphaId}/apps`)).toEqual([(await status("apps", "fresh")).appId]);
    expect(await ids(`/projects/${betaId}/apps`)).toEqual([moverId]);
    expect((await status("apps", "mover")).projectId).toBe(betaId);
    const orders = await s.service.items<ServiceItem>("/servers/orders");
    expect(orders.map((o) => o.id)).toEqual([(await status("serverorders", "batch")).orderId]);
    expect(orders[0]?.servers).toHaveLength(2);
    expect(await s.service.items("/servers")).toHaveLength(2);
    expect((await status("serverorders", "batch")).servers).toHaveLength(2);

    // And in the service's log: each create, the order and the move were made once.
    const made = (operation: string, code: number) =>
      s.requests(operation).filter((r) => r.status === code && !r.replayed).length;
    expect({
      createProject: made("createProject", 201),
      createGrid: made("createGrid", 201),
      createApp: made("createApp", 201),
      orders: made("provisionServers", 202),
      moves: s.requests("moveApp").length,
    }).toEqual({ createProject: 2, createGrid: 1, createApp: 2, orders: 1, moves: 1 });
  }, 180_000);
});

async function until(test: () => boolean, what: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!test()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
