import { describe, expect, it } from "vitest";
import type { Failure } from "../service/failure.ts";
import { createIntent } from "../skeleton/intents.ts";
import type { Failed } from "../skeleton/kind.ts";
import type { AppAction, AppFact } from "./actions.ts";
import { anApp, desiredOf, knowledgeOf, serviceApp, serviceStatus } from "./builders.test-support.ts";
import { learnApp } from "./learn.ts";
import type { AppKnowledge } from "./memory.ts";

const restartIntent = {
  operation: "restartApp",
  input: { requestedAt: "t1" },
  attempt: 1,
  key: "restartApp.k",
};

const app = anApp();
const service = serviceApp(desiredOf(app));
const running = () => knowledgeOf(app, { app: service, status: serviceStatus("running") });

function failure(extra: Partial<Failure>): Failure {
  return {
    stalled: false,
    reason: "HostingError",
    message: "failed",
    requestId: undefined,
    uncertain: false,
    refreshIdentity: false,
    retryAfterMs: undefined,
    ...extra,
  } as Failure;
}

function failed(action: AppAction, extra: Partial<Failure>): Failed<AppAction> {
  return { type: "failed", action, failure: failure(extra), error: new Error("unused") as never };
}

type Case = [string, AppKnowledge, AppFact | Failed<AppAction>, Partial<AppKnowledge>];

describe("learnApp", () => {
  it.each<Case>([
    [
      "a claim is remembered until carried out",
      running(),
      { type: "claimed", request: "restart", value: "t1" },
      { claims: { restart: "t1" } },
    ],
    [
      "a create: the app as sent, its status from the answer's start, read again from now",
      knowledgeOf(app, { gone: true }, { uncertainCreate: true }),
      { type: "created", app: service, generation: 3, appliedSecrets: "A:x", at: 10, buildDueAt: 99 },
      {
        uncertainCreate: false,
        readGeneration: 3,
        appliedSecrets: "A:x",
        buildDueAt: 99,
        changedByCall: { status: true, build: false },
      },
    ],
    [
      "a redeploying update of a running app: provisioning, status changed by the call",
      running(),
      { type: "updated", app: service, patch: "{}", at: 5, redeploy: "provisioning" },
      { changedByCall: { status: true, build: false } },
    ],
    [
      "a restart accepted: the claim is done",
      knowledgeOf(app, { app: service, status: serviceStatus("running") }, { claims: { restart: "t1" } }),
      { type: "powerAccepted", action: "restart" },
      { claims: { restart: undefined }, changedByCall: { status: true, build: false } },
    ],
    [
      "a build trigger accepted: the rebuild claim is done before the app is read",
      knowledgeOf(app, { app: service }, { claims: { rebuild: "t2" } }),
      { type: "rebuildAccepted" },
      { claims: { rebuild: undefined } },
    ],
    [
      "a delete refused while stopping: the next look is when the stop should be over",
      running(),
      { type: "stillStopping", settlesAt: 42 },
      { statusDueAt: 42 },
    ],
    [
      "a move whose answer was lost: unknown, read again at once",
      running(),
      { type: "moved", app: undefined, at: 7 },
      { statusDueAt: 7, readGeneration: undefined },
    ],
    [
      "an uncertain create: look before creating again",
      knowledgeOf(app),
      failed(
        {
          type: "create",
          projectId: "p",
          body: { name: "web", config: {} },
          idempotencyKey: "k",
          intent: createIntent("createApp", { projectId: "p", name: "web" }, "k", 0),
        },
        { uncertain: true },
      ),
      { uncertainCreate: true, refusedCreates: 0 },
    ],
    [
      "a certain refusal of a create: the next key moves on",
      knowledgeOf(app),
      failed(
        {
          type: "create",
          projectId: "p",
          body: { name: "web", config: {} },
          idempotencyKey: "k",
          intent: createIntent("createApp", { projectId: "p", name: "web" }, "k", 0),
        },
        { stalled: true },
      ),
      { uncertainCreate: false, refusedCreates: 1 },
    ],
    [
      "a restart that may have acted is given up (at most once)",
      knowledgeOf(app, { app: service }, { claims: { restart: "t1" } }),
      failed({ type: "restart", requestedAt: "t1", intent: restartIntent }, { uncertain: true }),
      { claims: { restart: undefined } },
    ],
    [
      "a restart the service surely did not act on is kept for a retry",
      knowledgeOf(app, { app: service }, { claims: { restart: "t1" } }),
      failed({ type: "restart", requestedAt: "t1", intent: restartIntent }, {}),
      { claims: { restart: "t1" } },
    ],
  ])("%s", (_, before, fact, expected) => {
    const snapshot = structuredClone(before);
    expect(learnApp(before, fact)).toMatchObject(expected);
    expect(before).toEqual(snapshot);
  });

  it("external state follows the calls", () => {
    const created = learnApp(knowledgeOf(app, { gone: true }), {
      type: "created",
      app: { ...service, start: { state: "failed" } },
      generation: 1,
      appliedSecrets: undefined,
      at: 10,
      buildDueAt: undefined,
    });
    expect(created.external).toMatchObject({ gone: false, startRequestedAt: 10, build: undefined });
    expect(created.external.status?.state).toBe("start_blocked");

    const stopping = learnApp(
      learnApp(running(), { type: "powerRequested", action: "stop", at: 1, settlesAt: 3 }),
      {
        type: "powerAccepted",
        action: "stop",
      },
    );
    expect(stopping.external).toMatchObject({
      stopSettlesAt: 3,
      status: { state: "stopping", targetState: "stopped" },
    });

    const building = learnApp(running(), { type: "buildStarted", app: { ...service, buildId: "bld" } });
    expect(building.external.build).toEqual({ id: "bld", state: "queued" });
    expect(building.external.status?.state).toBe("building");
    expect(building.changedByCall).toEqual({ status: true, build: true });

    expect(learnApp(running(), { type: "deleted" }).external.gone).toBe(true);
  });
});
