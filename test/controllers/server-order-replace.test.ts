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
import { sleep, useOperatorEnvironment } from "./support.ts";

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
    const { servers, operator } = await ordered(1);
    const [first = ""] = servers;
    await operator.stop();
    await env.startOperator({}, "10m");
    await annotate(`${first}@after-restart`);
    const askedAt = Date.now();
    await objects.waitFor(
      "serverorders",
      "batch",
      (o) => o?.status?.lastHandledReplaceServer === `${first}@after-restart`,
      15_000,
    );
    expect(Date.now() - askedAt).toBeLessThan(15_000);
    expect(replaced()).toHaveLength(1);
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
    await objects.waitFor("serverorders", "batch", (o) => o?.status?.lastHandledReconcileAt === "again-1");
    await sleep(500);
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
    await sleep(500);
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
    await sleep(500);
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
    try {
      await objects.create("serverorders", "batch", { ...spec, count: 1 });
      const ready = await objects.waitFor("serverorders", "batch", readyWithout(1), 40_000);
      old = addressesOf(ready)[0] ?? "";
      // The service holds the replace call for 3 s under its key, then acts and drops the answer.
      env.sim.injectFault({ operation: "replaceServer", latencyMs: 3000, dropResponse: true, times: 1 });
      await objects.patch("serverorders", "batch", {
        metadata: { annotations: { [annotation]: `${old}@t1` } },
      });
      // Status says a replace call may be in flight before it is sent.
      await objects.waitFor("serverorders", "batch", (o) => pending(o, "replaceServer") !== undefined);
      await sleep(500);
      await stop(first, "SIGKILL");
    } finally {
      await stop(first, "SIGKILL");
    }
    const killed = await objects.get("serverorders", "batch");
    expect(JSON.parse(pending(killed, "replaceServer")?.input ?? "{}")).toMatchObject({
      address: old,
      request: `${old}@t1`,
    });
    expect(killed?.status?.replacements).toBeUndefined();
    await sleep(3000); // the held call acts meanwhile

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
    } finally {
      await stop(second, "SIGTERM");
    }
  });
});
