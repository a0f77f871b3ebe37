import { describe, expect, it } from "vitest";
import { HostingApiError, type HostingClient } from "../../hosting/index.ts";
import type { KubeObject } from "../../runtime/index.ts";
import type { ControllerDeps } from "../service/deps.ts";
import type { Connection } from "../service/hosting-access.ts";
import { createIntent } from "../skeleton/intents.ts";
import type { ObjectFact } from "../skeleton/kind.ts";
import type { AppAction, AppFact } from "./actions.ts";
import {
  anApp,
  appId,
  desiredOf,
  knowledgeOf,
  polls,
  projectId,
  serviceApp,
  serviceStatus,
} from "./builders.test-support.ts";
import { createBody } from "./desired.ts";
import type { AppKnowledge } from "./memory.ts";
import { performApp } from "./perform.ts";

const metadata = { status: 202, requestId: "req_ok", replayed: false, attempts: 1 };
const app = anApp({}, { status: { appId, projectId } });

function refusal(code: string) {
  return new HostingApiError({
    status: 409,
    code,
    kind: "terminal",
    operation: "op",
    message: code,
    requestId: "req_no",
  });
}

function context(client: Partial<HostingClient>, knowledge: AppKnowledge) {
  const events: string[] = [];
  const deps = {
    now: () => 1000,
    recorder: {
      record: (_: KubeObject, type: string, reason: string, note: string) =>
        events.push(`${type} ${reason}: ${note}`),
    },
  } as unknown as ControllerDeps;
  const object = app as unknown as KubeObject;
  const connection = { client } as Connection;
  return { events, context: { deps, object, resource: app, knowledge, connection } };
}

/** Performs `action` to its end; an error thrown on the way fails the test. */
async function run(action: AppAction, client: Partial<HostingClient>, knowledge = knowledgeOf(app)) {
  const { events, context: ctx } = context(client, knowledge);
  const facts: Array<AppFact | ObjectFact> = [];
  for await (const fact of performApp(polls)(action, ctx)) facts.push(fact);
  return { facts, events };
}

/** Performs `action`, which must fail: the facts yielded before the failure, and the error. */
async function runToFailure(action: AppAction, client: Partial<HostingClient>, knowledge = knowledgeOf(app)) {
  const { context: ctx } = context(client, knowledge);
  const facts: Array<AppFact | ObjectFact> = [];
  try {
    for await (const fact of performApp(polls)(action, ctx)) facts.push(fact);
  } catch (error) {
    return { facts, thrown: error };
  }
  throw new Error(`${action.type} did not fail`);
}

describe("performApp", () => {
  it("a create yields the app as sent, then the request ID, and says so in an event", async () => {
    const desired = desiredOf(app);
    const body = createBody(desired);
    const { facts, events } = await run(
      {
        type: "create",
        projectId,
        body,
        idempotencyKey: "key",
        intent: createIntent("createApp", { projectId, name: body.name }, "key", 0),
      },
      { createApp: async () => ({ id: appId, buildId: "bld", $metadata: { ...metadata, status: 201 } }) },
    );
    expect(facts).toEqual([
      expect.objectContaining({
        type: "created",
        generation: 1,
        at: 1000,
        buildDueAt: 1000 + polls.buildingMs,
      }),
      { type: "answered", requestId: "req_ok" },
    ]);
    expect(facts[0]).toMatchObject({ app: { id: appId, projectId, name: body.name, buildId: "bld" } });
    expect(events).toEqual([
      `Normal Created: created app ${body.name} (${appId}) in project ${projectId} (request req_ok)`,
    ]);
  });

  it("a stop is remembered as asked before the call, so a lost answer still waits for it", async () => {
    const { facts, thrown } = await runToFailure(
      { type: "stop" },
      {
        stopApp: async () => {
          throw refusal("conflict");
        },
      },
    );
    expect(thrown).toBeInstanceOf(HostingApiError);
    expect(facts).toEqual([
      { type: "powerRequested", action: "stop", at: 1000, settlesAt: 1000 + polls.stoppingMs },
    ]);
  });

  it("a delete refused while the app still stops yields when to try again, then fails", async () => {
    const knowledge = knowledgeOf(app, {
      app: serviceApp(desiredOf(app)),
      status: serviceStatus("stopping"),
    });
    const { facts, thrown } = await runToFailure(
      { type: "delete" },
      {
        deleteApp: async () => {
          throw refusal("app_not_stopped");
        },
      },
      knowledge,
    );
    expect(facts).toEqual([{ type: "stillStopping", settlesAt: 1000 + polls.stoppingMs }]);
    expect((thrown as HostingApiError).code).toBe("app_not_stopped");
  });

  it("a delete of an app already gone is a deletion", async () => {
    const { facts } = await run(
      { type: "delete" },
      {
        deleteApp: async () => {
          throw new HostingApiError({
            status: 404,
            code: "not_found",
            kind: "terminal",
            operation: "op",
            message: "gone",
          });
        },
      },
    );
    expect(facts).toEqual([{ type: "deleted" }]);
  });

  it("a claim calls nothing", async () => {
    const { facts } = await run({ type: "claim", request: "restart", value: "t1" }, {});
    expect(facts).toEqual([
      { type: "claimed", request: "restart", value: "t1" },
      // Echoed only once claimed: a claim a pause holds back leaves the request waiting.
      { type: "recorded", status: { lastHandledRestartAt: "t1" } },
    ]);
  });
});
