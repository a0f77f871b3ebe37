import { describe, expect, it } from "vitest";
import type { Project } from "../../api/project.ts";
import { HostingApiError, type HostingClient, type Share } from "../../hosting/index.ts";
import { asKubeObject } from "../../runtime/index.ts";
import type { ControllerDeps } from "../service/deps.ts";
import { noNamespaceDefaults } from "../service/management.ts";
import { converge } from "../skeleton/converge.ts";
import { createIntent } from "../skeleton/intents.ts";
import type { ObjectFact } from "../skeleton/kind.ts";
import { allowanceOf } from "../skeleton/policies.ts";

import type { ProjectAction, ProjectFact } from "./actions.ts";
import { me as ownerKey, projectKnowledge, aProject as projectWith } from "./builders.test-support.ts";
import type { ProjectKnowledge } from "./memory.ts";
import { performProject } from "./perform.ts";
import { projectKind } from "./reconciler.ts";

const metadata = { status: 200, requestId: "req_1", replayed: false, attempts: 1 };
const owner: Share = { userId: "usr_owner", role: "owner", accountOwner: true };
const me = ownerKey(["*"], [], "usr_owner");
const aProject = (members?: Project["spec"]["members"]): Project =>
  projectWith(members === undefined ? {} : { members }, { generation: 2 });
const knowledge = (extra: Partial<ProjectKnowledge> = {}) => projectKnowledge({ me, ...extra });

function apiError(status: number, code: string, details?: Record<string, string>, requestId = "req_e") {
  const kind = status >= 500 ? "retryable" : "terminal";
  return new HostingApiError({ status, code, kind, operation: "op", message: code, requestId, details });
}

/** A client answering only the calls these tests make; `addShare` answers per target in order. */
function fakeClient(adds: Array<(target: string) => Share>) {
  const calls: string[] = [];
  const client = {
    createProject: async (input: { name: string }) => {
      calls.push(`create ${input.name}`);
      return { id: "p_new", $metadata: metadata };
    },
    addShare: async (_resource: unknown, input: { userId?: string; email?: string }) => {
      const target = input.userId ?? input.email ?? "";
      calls.push(`add ${target}`);
      const answer = adds.shift();
      if (answer === undefined) throw new Error("unexpected addShare");
      return { ...answer(target), $metadata: metadata };
    },
  };
  return { client: client as unknown as HostingClient, calls };
}

function fakeDeps() {
  const events: string[] = [];
  const recorder = {
    record: (_object: unknown, type: string, reason: string, note: string) =>
      events.push(`${type} ${reason}: ${note}`),
  };
  const deps = { recorder, now: () => 1000, hosting: { forgetIdentity: () => undefined } };
  return { deps: deps as unknown as ControllerDeps, events };
}

async function perform(
  action: ProjectAction,
  project: Project,
  known: ProjectKnowledge,
  client: HostingClient,
) {
  const { deps, events } = fakeDeps();
  const facts: Array<ProjectFact | ObjectFact> = [];
  const context = {
    deps,
    object: asKubeObject(project),
    resource: project,
    knowledge: known,
    connection: { client, me },
  };
  for await (const fact of performProject(action, context)) facts.push(fact);
  return { facts, events };
}

const addByEmail = (email: string): ProjectAction => ({
  type: "addMember",
  who: email,
  target: { email },
  role: "viewer",
});

describe("performProject", () => {
  it("a create yields the project, read at the generation, then the request ID, with a Created event", async () => {
    const { client } = fakeClient([]);
    const action: ProjectAction = {
      type: "create",
      name: "demo",
      idempotencyKey: "k",
      intent: createIntent("createProject", { name: "demo" }, "k", 0),
    };
    const { facts, events } = await perform(action, aProject([]), knowledge(), client);
    expect(facts).toEqual([
      { type: "created", project: { id: "p_new", name: "demo" }, generation: 2, sharesDueAt: 1000 },
      { type: "answered", requestId: "req_1" },
    ]);
    expect(events).toEqual(["Normal Created: created project demo (p_new) (request req_1)"]);
  });

  it.each([
    {
      case: "an add by email: the user ID, the share, the request ID",
      answer: (target: string): Share => ({ userId: "usr_ann", email: target, role: "viewer" }),
      facts: [
        { type: "emailUser", email: "ann@example.test", userId: "usr_ann" },
        {
          type: "shareAdded",
          share: { userId: "usr_ann", email: "Ann@example.test", role: "viewer", $metadata: metadata },
        },
        { type: "answered", requestId: "req_1" },
      ],
      events: ["Normal Shared: shared the project with Ann@example.test as viewer (request req_1)"],
    },
    {
      case: "a share that exists: the user ID, the shares read again now",
      answer: (): Share => {
        throw apiError(409, "share_exists", { userId: "usr_ann" });
      },
      facts: [
        { type: "emailUser", email: "ann@example.test", userId: "usr_ann" },
        { type: "sharesStale", dueAt: 1000 },
      ],
      events: [],
    },
    {
      case: "a user the service does not know: refused (InvalidSpec), quoting the request",
      answer: (): Share => {
        throw apiError(404, "not_found", { resourceType: "user" });
      },
      facts: [
        { type: "answered", requestId: "req_e" },
        {
          type: "memberRefused",
          problem: {
            stalled: true,
            reason: "InvalidSpec",
            message:
              "spec.members names Ann@example.test, but the service knows no such user (request req_e); fix the entry or remove it",
          },
        },
      ],
      events: [],
    },
  ])("$case", async ({ answer, facts, events }) => {
    const { client } = fakeClient([answer]);
    const known = knowledge({ project: { id: "p1", name: "demo" }, shares: [owner] });
    const done = await perform(addByEmail("Ann@example.test"), aProject(), known, client);
    expect(done.facts).toEqual(facts);
    expect(done.events).toEqual(events);
  });

  it("after a refused member, the sharing changes after it are not sent", async () => {
    const { client, calls } = fakeClient([]);
    const refused = { stalled: true, reason: "InvalidSpec", message: "no such user" } as const;
    const known = knowledge({ project: { id: "p1", name: "demo" }, shares: [owner], problem: refused });
    const { facts } = await perform(addByEmail("cid@example.test"), aProject(), known, client);
    expect(facts).toEqual([]);
    expect(calls).toEqual([]);
  });
});

describe("Project through converge", () => {
  const project = aProject([
    { email: "ann@example.test", role: "viewer" },
    { userId: "usr_dan", role: "editor" },
    { userId: "usr_eve", role: "viewer" },
  ]);
  const start = (client: HostingClient) => {
    const { deps, events } = fakeDeps();
    const known = knowledge({ project: { id: "p1", name: "demo" }, shares: [owner], requestId: "req_0" });
    const object = asKubeObject(project);
    const now = new Date(1000);
    return {
      events,
      run: () => {
        const kind = projectKind(deps);
        return converge(kind, {
          deps,
          object,
          resource: project,
          knowledge: known,
          connection: { client, me },
          now,
          allowance: allowanceOf(project, noNamespaceDefaults),
          writes: { kube: deps.kube, recorder: deps.recorder, kind },
        });
      },
    };
  };

  it("a call failing after others keeps what the earlier ones taught", async () => {
    const { client, calls } = fakeClient([
      (target) => ({ userId: "usr_ann", email: target, role: "viewer" }),
      () => {
        throw apiError(503, "service_unavailable", undefined, "req_f");
      },
    ]);
    const { run, events } = start(client);
    const converged = await run();
    expect(calls).toEqual(["add ann@example.test", "add usr_dan"]);
    expect(converged.failure).toMatchObject({ reason: "HostingError", stalled: false });
    expect(converged.knowledge).toMatchObject({
      emailUsers: { "ann@example.test": "usr_ann" },
      // Forgotten on the failure, as before: read again after the backoff.
      shares: undefined,
      requestId: "req_f",
    });
    expect(events).toEqual([
      "Normal Shared: shared the project with ann@example.test as viewer (request req_1)",
      expect.stringMatching(/^Warning HostingError: sharing the project with usr_dan failed: /),
    ]);
  });

  it("a user the service does not know stops the adds after it; the status says Stalled InvalidSpec", async () => {
    const { client, calls } = fakeClient([
      (target) => ({ userId: "usr_ann", email: target, role: "viewer" }),
      () => {
        throw apiError(404, "not_found", { resourceType: "user" }, "req_u");
      },
    ]);
    const { run } = start(client);
    const converged = await run();
    expect(calls).toEqual(["add ann@example.test", "add usr_dan"]);
    expect(converged.failure).toBeUndefined();
    expect(converged.plan.stalled).toBe(true);
    expect(converged.plan.status.conditions).toContainEqual(
      expect.objectContaining({
        type: "Stalled",
        status: "True",
        reason: "InvalidSpec",
        message:
          "spec.members names usr_dan, but the service knows no such user (request req_u); fix the entry or remove it",
      }),
    );
    expect(converged.knowledge.shares).toEqual([owner, expect.objectContaining({ userId: "usr_ann" })]);
  });
});
