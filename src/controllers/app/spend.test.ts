import { describe, expect, it } from "vitest";
import type {
  AppPatch,
  CreateAppInput,
  App as ServiceApp,
  AppStatus as ServiceStatus,
} from "../../hosting/index.ts";
import type { AppAction } from "./actions.ts";
import { anApp, desiredOf, knowledgeOf, serviceApp, serviceStatus } from "./builders.test-support.ts";
import type { AppField } from "./diff.ts";
import { appSpend } from "./spend.ts";

const running = (nodes: number, cost: string): ServiceStatus =>
  serviceStatus("running", {
    nodes: Array.from({ length: nodes }, (_, i) => ({ id: `n${i}`, state: "running" })),
    currentHourlyCost: cost,
    currency: "USD",
  } as Partial<ServiceStatus>);

/** An update of instances from `from` (at the service) to `to` (the patch). */
function raise(from: { min: number; max: number }, to: { min: number; max: number }, status?: ServiceStatus) {
  const app = anApp({ instances: to });
  const update: AppAction = {
    type: "update",
    patch: { config: { instances: to } },
    fields: ["instances"],
    drift: false,
  };
  const knowledge = knowledgeOf(app, { app: serviceApp(desiredOf(app), { instances: from }), status });
  return appSpend(update, app, knowledge);
}

describe("what an App's action adds to its namespace's spend", () => {
  it("counts a create or a start at the reserve per instance of instances.max, a create stopped too", () => {
    const app = anApp({ instances: { min: 1, max: 3 } });
    const knowledge = knowledgeOf(app);
    const create: AppAction = {
      type: "create",
      projectId: "p",
      body: { name: "web", config: { ports: [], instances: { min: 1, max: 3 } } },
      idempotencyKey: "k",
      intent: { operation: "createApp", key: "k", input: {}, attempt: 1 },
    };
    expect(appSpend(create, app, knowledge)).toEqual({ reserveInstances: 3 });
    // The service starts every app it creates: a stopped one runs until berth's stop lands.
    expect(appSpend(create, anApp({ stopped: true }), knowledgeOf(anApp({ stopped: true })))).toEqual({
      reserveInstances: 1,
    });
    expect(appSpend({ type: "start", drift: false }, app, knowledge)).toEqual({ reserveInstances: 3 });
    expect(appSpend({ type: "stop" }, app, knowledge)).toBeUndefined();
  });

  it.each([
    [
      "max up, one of two nodes' worth running",
      { min: 1, max: 2 },
      { min: 1, max: 5 },
      running(1, "0.0120"),
      { priced: "0.06" },
    ],
    ["min up", { min: 1, max: 3 }, { min: 3, max: 3 }, running(1, "0.0120"), { priced: "0.036" }],
    [
      "two nodes running: the node price is half the stated cost",
      { min: 2, max: 2 },
      { min: 2, max: 4 },
      running(2, "0.0240"),
      { priced: "0.048" },
    ],
    [
      "an odd amount is rounded up per node",
      { min: 3, max: 3 },
      { min: 3, max: 4 },
      running(3, "0.0100"),
      { priced: "0.013336" },
    ],
    [
      "no node runs to tell the price: the reserve",
      { min: 1, max: 1 },
      { min: 1, max: 4 },
      serviceStatus("provisioning"),
      { reserveInstances: 4 },
    ],
    ["not read yet: the reserve", { min: 1, max: 1 }, { min: 1, max: 2 }, undefined, { reserveInstances: 2 }],
    [
      "stopped at the service: nothing (the start is checked)",
      { min: 1, max: 1 },
      { min: 1, max: 4 },
      serviceStatus("stopped"),
      undefined,
    ],
    ["lowered: nothing", { min: 2, max: 4 }, { min: 1, max: 2 }, running(2, "0.0240"), undefined],
  ])("an instances update, %s", (_, from, to, status, ask) => {
    expect(raise(from, to, status)).toEqual(ask);
  });
});

/** An update of hardware and volumes on an app running one node at 0.0120/h with `at` as its sizing. */
function resize(at: Partial<ServiceApp["config"]>, patch: AppPatch["config"], fields: AppField[]) {
  const app = anApp({});
  const update: AppAction = { type: "update", patch: { config: patch }, fields, drift: false };
  const knowledge = knowledgeOf(app, { app: serviceApp(desiredOf(app), at), status: running(1, "0.0120") });
  return appSpend(update, app, knowledge);
}

const disk = (name: string, sizeGb: number) => ({ name, mountPath: `/${name}`, sizeGb });

describe("an App's sizing: priced from what the service states for it, or not at all", () => {
  it.each([
    ["four GPUs added", {}, { hardware: { gpu: 4 } }, ["hardware"], "spec.hardware.gpu goes from unset to 4"],
    [
      "more CPU",
      { hardware: { cpu: 1 } },
      { hardware: { cpu: 2 } },
      ["hardware"],
      "spec.hardware.cpu goes from 1 to 2",
    ],
    [
      "a key removed (back to the service's default)",
      { hardware: { cpu: 1 } },
      { hardware: { cpu: null } },
      ["hardware"],
      "spec.hardware.cpu goes from 1 to unset",
    ],
    [
      "a value that is not a number",
      { hardware: { class: "a" } },
      { hardware: { class: "b" } },
      ["hardware"],
      "spec.hardware.class goes from a to b",
    ],
    [
      "a volume added",
      { volumes: [disk("a", 1)] },
      { volumes: [disk("a", 1), disk("b", 1)] },
      ["volumes"],
      "volume b is added or grown",
    ],
    [
      "a volume grown",
      { volumes: [disk("a", 1)] },
      { volumes: [disk("a", 5)] },
      ["volumes"],
      "volume a is added or grown",
    ],
  ])("%s: unpriced, saying what changes", (_, at, patch, fields, why) => {
    const ask = resize(at, patch as AppPatch["config"], fields as AppField[]);
    expect(ask).toEqual({ unpriced: expect.stringContaining(why) });
    expect((ask as { unpriced: string }).unpriced).toContain(
      "names no price for spec.hardware or spec.volumes",
    );
  });

  it.each([
    ["less CPU", { hardware: { cpu: 2 } }, { hardware: { cpu: 1 } }, ["hardware"]],
    ["a volume removed", { volumes: [disk("a", 1), disk("b", 1)] }, { volumes: [disk("a", 1)] }, ["volumes"]],
    ["a volume shrunk", { volumes: [disk("a", 5)] }, { volumes: [disk("a", 1)] }, ["volumes"]],
  ])("%s: adds nothing", (_, at, patch, fields) => {
    expect(resize(at, patch as AppPatch["config"], fields as AppField[])).toBeUndefined();
  });

  it("a new build source redeploys at the same size: the node price × instances.max", () => {
    const ask = resize({ instances: { min: 1, max: 3 } }, {}, ["source"]);
    expect(ask).toEqual({ priced: "0.036" });
  });

  it("a sized app's create or start is unpriced; one of default size counts at the reserve", () => {
    const app = anApp({ instances: { min: 1, max: 2 } });
    const create = (config: CreateAppInput["config"]): AppAction => ({
      type: "create",
      projectId: "p",
      body: { name: "web", config },
      idempotencyKey: "k",
      intent: { operation: "createApp", key: "k", input: {}, attempt: 1 },
    });
    const plain = { ports: [], instances: { min: 1, max: 2 } };
    expect(appSpend(create(plain), app, knowledgeOf(app))).toEqual({ reserveInstances: 2 });
    expect(appSpend(create({ ...plain, hardware: { gpu: 1 } }), app, knowledgeOf(app))).toEqual({
      unpriced: expect.stringContaining("names no price"),
    });
    expect(appSpend(create({ ...plain, volumes: [disk("a", 1)] }), app, knowledgeOf(app))).toEqual({
      unpriced: expect.stringContaining("names no price"),
    });
    const sized = knowledgeOf(app, {
      app: serviceApp(desiredOf(app), { hardware: { gpu: 1 } }),
      status: serviceStatus("stopped", { targetState: "stopped" }),
    });
    expect(appSpend({ type: "start", drift: false }, app, sized)).toEqual({
      unpriced: expect.stringContaining("names no price"),
    });
  });

  it.each([
    ["deferred (no node runs)", serviceStatus("deferred"), { reserveInstances: 2 }],
    ["stopped", serviceStatus("stopped", { targetState: "stopped" }), { reserveInstances: 2 }],
    ["start_blocked", serviceStatus("start_blocked"), { reserveInstances: 2 }],
    ["running: the same nodes again, nothing added", running(1, "0.0120"), undefined],
  ])("a restart of an app %s", (_, status, ask) => {
    const app = anApp({ instances: { min: 1, max: 2 } });
    const knowledge = knowledgeOf(app, { app: serviceApp(desiredOf(app)), status });
    const restart: AppAction = {
      type: "restart",
      requestedAt: "now",
      intent: { operation: "restartApp", key: "k", input: {}, attempt: 1 },
    };
    expect(appSpend(restart, app, knowledge)).toEqual(ask);
  });
});
