import { type ChildProcess, spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import {
  type BerthObject,
  berthObjects,
  conditionOf,
  pending,
  withCondition,
} from "../support/berth-objects.ts";
import { kubeConfig, kubeconfigPath } from "../support/kube.ts";
import { serviceHttp } from "../support/service-http.ts";
import { until, useOperatorEnvironment } from "./support.ts";

interface ServiceServer {
  address: string;
  orderId: string;
  state: string;
}

const annotation = "berth.dev/replace-server";
const spec = {
  csp: "native",
  region: "eu-central",
  zone: "eu-central-1a",
  instanceType: "native.small",
  approved: true,
  maxHourlyCost: "0.25",
};

const addressesOf = (o: BerthObject | undefined) =>
  ((o?.status?.servers ?? []) as { address: string }[]).map((s) => s.address);

/** Ready, with `count` servers listed in status, none of them `gone`. */
const readyWithout =
  (count: number, ...gone: string[]) =>
  (o: BerthObject | undefined) =>
    withCondition("Ready")(o) &&
    conditionOf(o, "Reconciling")?.status !== "True" &&
    addressesOf(o).length === count &&
    !gone.some((a) => addressesOf(o).includes(a));

describe("ServerOrder replace-server annotation and spec.autoReplace", () => {
  const env = useOperatorEnvironment();
  const objects = berthObjects(kubeConfig(), () => env.namespace);
  /** Replace calls the service acted on (not replays of an earlier answer). */
  const replaced = () => env.requests("replaceServer").filter((r) => r.status === 202 && !r.replayed);

  async function ordered(count: number, driftInterval = "10m") {
    const account = await env.setUp();
    const operator = await env.startOperator({}, driftInterval);
    await objects.create("serverorders", "batch", { ...spec, count });
    const ready = await objects.waitFor("serverorders", "batch", readyWithout(count), 30_000);
    return { service: serviceHttp(env.baseUrl, account.token), servers: addressesOf(ready), operator };
  }

  const annotate = (value: string, key = annotation) =>
    objects.patch("serverorders", "batch", { metadata: { annotations: { [key]: value } } });

  it("after a restart, a request on a settled ServerOrder is handled at once, not at its spread first read", async () => {
    // Drift checks 24 h apart: the restarted operator's first read of the order is spread over a
    // day, so a request handled only at that read would not be handled while this test waits.
    const { servers, operator } = await ordered(1, "24h");
    const [first = ""] = servers;
    await operator.stop();
    const readsBefore = env.requests("getOrder").length;
    await env.startOperator({}, "24h");
    await annotate(`${first}@after-restart`);
    await objects.waitFor(
      "serverorders",
      "batch",
      (o) => o?.status?.lastHandledReplaceServer === `${first}@after-restart`,
      30_000,
    );
    expect(replaced()).toHaveLength(1);
    // Handled by its own fresh read of the order, not by the spread one: one read, for the request.
    expect(env.requests("getOrder").length - readsBefore).toBeLessThanOrEqual(1);
  });

  it("replaces a server exactly once per token, echoes the request, and shows the new server", async () => {
    const { service, servers } = await ordered(2);
    const [first = "", second = ""] = servers;

    await annotate(`${first}@ticket-1`);
    const done = await objects.waitFor(
      "serverorders",
      "batch",
      (o) => readyWithout(2, first)(o) && o?.status?.lastHandledReplaceServer === `${first}@ticket-1`,
      30_000,
    );
    expect(replaced()).toHaveLength(1);
    expect(conditionOf(done, "Replaced"), JSON.stringify(conditionOf(done, "Replaced"))).toMatchObject({
      status: "True",
      reason: "Succeeded",
    });
    const replacements = done?.status?.replacements as {
      address: string;
      orderId: string;
      request: string;
    }[];
    expect(replacements).toEqual([
      expect.objectContaining({ address: first, request: `${first}@ticket-1`, orderId: expect.any(String) }),
    ]);
    const newServer = await service.items<ServiceServer>(`/servers?orderId=${replacements[0]?.orderId}`);
    expect(newServer).toHaveLength(1);
    expect(addressesOf(done).sort()).toEqual([second, newServer[0]?.address].sort());
    expect(await env.eventReasons("batch")).toContain("Replacing");

    // The same token again (another reconcile) replaces nothing.
    await annotate("again-1", "berth.dev/reconcile-requested-at");
    // The echo is written after the reconcile's calls: had it replaced again, the log would show it.
    await objects.waitFor("serverorders", "batch", (o) => o?.status?.lastHandledReconcileAt === "again-1");
    expect(replaced()).toHaveLength(1);

    // A new token is a new request: the second server is replaced too.
    await annotate(`${second}@ticket-2`);
    const twice = await objects.waitFor(
      "serverorders",
      "batch",
      (o) =>
        readyWithout(2, first, second)(o) && o?.status?.lastHandledReplaceServer === `${second}@ticket-2`,
      30_000,
    );
    expect(replaced()).toHaveLength(2);
    expect(twice?.status?.replacements).toHaveLength(2);
    const listed = await service.items<ServiceServer>("/servers");
    expect(
      listed
        .filter((s) => s.state === "running")
        .map((s) => s.address)
        .sort(),
    ).toEqual(addressesOf(twice).sort());
  });

  it("refuses an address that is not one of its servers, and a malformed value, with the reason", async () => {
    const { servers } = await ordered(1);
    const foreign = `0x${"ab".repeat(20)}`;
    await annotate(`${foreign}@ticket-1`);
    const refused = await objects.waitFor(
      "serverorders",
      "batch",
      (o) => conditionOf(o, "Replaced")?.reason === "ReplaceRefused",
    );
    expect(conditionOf(refused, "Replaced")?.message).toContain(
      `server ${foreign} is not one of this ServerOrder's servers (${servers[0]})`,
    );
    expect(refused?.status?.lastHandledReplaceServer).toBe(`${foreign}@ticket-1`);
    expect(conditionOf(refused, "Ready")?.status).toBe("True");
    await env.waitForEvent("batch", "ReplaceRefused");

    await annotate("not-an-address");
    const malformed = await objects.waitFor(
      "serverorders",
      "batch",
      (o) => o?.status?.lastHandledReplaceServer === "not-an-address",
    );
    expect(conditionOf(malformed, "Replaced")?.message).toMatch(/must be "<address>@<token>"/);
    // Both refusals were handled (echoed after the reconcile's calls) without a call.
    expect(env.requests("replaceServer")).toEqual([]);
    expect(addressesOf(await objects.get("serverorders", "batch"))).toEqual(servers);
  });

  it("reports a failed server (Stalled ServerFailed); with spec.autoReplace it replaces it once, with an event", async () => {
    // The service does not say when a server fails: berth sees it at the drift check.
    const { servers } = await ordered(2, "2s");
    const [broken = ""] = servers;
    env.sim.failServer(broken);
    const stalled = await objects.waitFor(
      "serverorders",
      "batch",
      withCondition("Stalled", "True", "ServerFailed"),
      20_000,
    );
    expect(conditionOf(stalled, "Stalled")?.message).toContain(`${annotation}: "${broken}@<any new token>"`);
    expect(replaced()).toEqual([]);

    await objects.patch("serverorders", "batch", { spec: { autoReplace: true } });
    const healed = await objects.waitFor("serverorders", "batch", readyWithout(2, broken), 30_000);
    expect(replaced()).toHaveLength(1);
    expect(healed?.status?.replacements).toEqual([expect.objectContaining({ address: broken })]);
    expect(conditionOf(healed, "Stalled")?.status ?? "False").toBe("False");
    await env.waitForEvent("batch", "Replacing");
    // Two more drift checks (2 s apart) read the healed order: the first has finished, and it
    // replaced nothing more.
    const reads = env.requests("getOrder").length;
    await until(
      () => env.requests("getOrder").length >= reads + 2,
      "two drift checks after the heal",
      30_000,
    );
    expect(replaced()).toHaveLength(1);
  });
});

/** `berth operator` as its own process, watching one namespace. */
function operatorProcess(namespace: string): ChildProcess {
  const args = ["src/main.ts", "operator", "--kubeconfig", kubeconfigPath(), "--namespace", namespace];
  return spawn(
    process.execPath,
    [...args, "--metrics-addr", "", "--health-addr", "", "--log-level", "warn"],
    {
      stdio: ["ignore", "ignore", "inherit"],
    },
  );
}

async function stop(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill(signal);
  await exited;
}

describe("operator killed while the replace call is in flight", () => {
  const env = useOperatorEnvironment();
  const objects = berthObjects(kubeConfig(), () => env.namespace);

  it("replaces the server exactly once after a restart", async () => {
    const account = await env.setUp();
    const service = serviceHttp(env.baseUrl, account.token);
    const first = operatorProcess(env.namespace);
    let old = "";
    let held = "";
    try {
      await objects.create("serverorders", "batch", { ...spec, count: 1 });
      const ready = await objects.waitFor("serverorders", "batch", readyWithout(1), 40_000);
      old = addressesOf(ready)[0] ?? "";
      // The service holds the replace call for 3 s under its key, then acts and drops the answer.
      held = env.sim.injectFault({
        operation: "replaceServer",
        latencyMs: 3000,
        dropResponse: true,
        times: 1,
      });
      await objects.patch("serverorders", "batch", {
        metadata: { annotations: { [annotation]: `${old}@t1` } },
      });
      // Status says a replace call may be in flight before it is sent.
      await objects.waitFor("serverorders", "batch", (o) => pending(o, "replaceServer") !== undefined);
      // The moment: the call reached the service (its fault hit) and has not acted yet.
      await until(() => env.faultSpent(held), "the replace call held at the service");
      const replacesAtKill = env.requests("replaceServer");
      await stop(first, "SIGKILL");
      expect(replacesAtKill).toEqual([]);
    } finally {
      await stop(first, "SIGKILL");
    }
    expect(env.sim.spentFaults()).toEqual([expect.objectContaining({ id: held, hits: 1 })]);
    const killed = await objects.get("serverorders", "batch");
    expect(JSON.parse(pending(killed, "replaceServer")?.input ?? "{}")).toMatchObject({
      address: old,
      request: `${old}@t1`,
    });
    expect(killed?.status?.replacements).toBeUndefined();
    // The held call acts with nobody left to hear the answer; the restart comes after that.
    await until(
      () => env.requests("replaceServer").some((r) => r.status === 202 && r.dropped),
      "the held replace acted",
    );
    const loggedAtRestart = env.sim.requests().length;

    const second = operatorProcess(env.namespace);
    try {
      const done = await objects.waitFor("serverorders", "batch", readyWithout(1, old), 40_000);
      const orders = await service.items<{ id: string; count: number }>("/servers/orders");
      expect(orders).toHaveLength(2);
      const listed = await service.items<ServiceServer>("/servers");
      expect(listed.filter((s) => s.state !== "retiring").map((s) => s.address)).toEqual(addressesOf(done));
      expect(done?.status?.intents ?? []).toEqual([]);
      expect(done?.status?.replacements).toEqual([
        expect.objectContaining({ address: old, request: `${old}@t1` }),
      ]);
      const acted = env.requests("replaceServer").filter((r) => !r.replayed && r.status !== 409);
      expect(acted).toHaveLength(1);
      // The restarted operator acted on no replace of its own: only the held call replaced.
      const restarted = env.sim.requests().slice(loggedAtRestart);
      expect(restarted.filter((r) => r.operation === "replaceServer" && !r.replayed)).toEqual([]);
    } finally {
      await stop(second, "SIGTERM");
    }
  });
});
