import { describe, expect, it } from "vitest";
import type { AppStatus as ServiceStatus } from "../../hosting/index.ts";
import type { AppAction } from "./actions.ts";
import { anApp, desiredOf, knowledgeOf, serviceApp, serviceStatus } from "./builders.test-support.ts";
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
