import { describe, expect, it } from "vitest";
import { HostingApiError, type Share } from "../../hosting/index.ts";
import { describeFailure } from "../service/failure.ts";
import { Reason } from "../service/reasons.ts";
import { createIntent } from "../skeleton/intents.ts";
import type { Failed } from "../skeleton/kind.ts";
import type { ProjectAction, ProjectFact } from "./actions.ts";
import { projectKnowledge } from "./builders.test-support.ts";
import { learnProject } from "./learn.ts";
import { newProjectMemory, type ProjectKnowledge, rememberProject } from "./memory.ts";

const owner: Share = { userId: "usr_owner", role: "owner", accountOwner: true };
const ann: Share = { userId: "usr_ann", email: "ann@example.test", role: "viewer", accountOwner: false };
const cid: Share = { userId: "usr_cid", role: "editor", accountOwner: false };

function known(extra: Partial<ProjectKnowledge> = {}): ProjectKnowledge {
  return projectKnowledge({
    requestId: "req_old",
    project: { id: "p1", name: "demo" },
    shares: [owner, ann],
    emailUsers: { "bob@example.test": "usr_bob" },
    driftDueAt: 5000,
    readGeneration: 1,
    ...extra,
  });
}

function failed(
  action: ProjectAction,
  status: number,
  code: string,
  kind: "retryable" | "terminal" | "uncertain",
) {
  const error = new HostingApiError({
    status,
    code,
    kind,
    operation: "op",
    message: code,
    requestId: "req_f",
  });
  return {
    type: "failed",
    action,
    failure: describeFailure(error, "doing"),
    error,
  } satisfies Failed<ProjectAction>;
}

const create: ProjectAction = {
  type: "create",
  name: "demo",
  idempotencyKey: "k",
  intent: createIntent("createProject", { name: "demo" }, "k", 0),
};
const addAnn: ProjectAction = {
  type: "addMember",
  who: "ann",
  target: { userId: "usr_ann" },
  role: "viewer",
};
const problem = { stalled: true, reason: Reason.InvalidSpec, message: "no such user" };

describe("learnProject", () => {
  it.each<{
    case: string;
    start?: Partial<ProjectKnowledge>;
    fact: ProjectFact | Failed<ProjectAction>;
    expected: Partial<ProjectKnowledge>;
  }>([
    {
      case: "created: known, read at its generation, no longer uncertain",
      start: { project: undefined, gone: true, uncertainCreate: true, readGeneration: undefined },
      fact: { type: "created", project: { id: "p2", name: "demo" }, generation: 3, sharesDueAt: undefined },
      expected: {
        project: { id: "p2", name: "demo" },
        gone: false,
        uncertainCreate: false,
        readGeneration: 3,
        driftDueAt: 5000,
      },
    },
    {
      case: "created with spec.members: the shares are read at once",
      fact: { type: "created", project: { id: "p2", name: "demo" }, generation: 3, sharesDueAt: 42 },
      expected: { project: { id: "p2", name: "demo" }, readGeneration: 3, driftDueAt: 42 },
    },
    {
      case: "renamed: the answer is the project",
      start: { gone: true },
      fact: { type: "renamed", project: { id: "p1", name: "new" } },
      expected: { project: { id: "p1", name: "new" }, gone: true },
    },
    {
      case: "deleted: gone, the project kept",
      fact: { type: "deleted" },
      expected: { gone: true, project: { id: "p1", name: "demo" } },
    },
    {
      case: "shareAdded: appended",
      fact: { type: "shareAdded", share: cid },
      expected: { shares: [owner, ann, cid] },
    },
    {
      case: "shareAdded to unknown shares: only it",
      start: { shares: undefined },
      fact: { type: "shareAdded", share: cid },
      expected: { shares: [cid] },
    },
    {
      case: "shareChanged: the role replaced",
      fact: { type: "shareChanged", userId: "usr_ann", role: "editor" },
      expected: { shares: [owner, { ...ann, role: "editor" }] },
    },
    {
      case: "shareChanged on unknown shares: still unknown",
      start: { shares: undefined },
      fact: { type: "shareChanged", userId: "usr_ann", role: "editor" },
      expected: { shares: undefined },
    },
    {
      case: "shareRemoved: filtered out",
      fact: { type: "shareRemoved", userId: "usr_ann" },
      expected: { shares: [owner] },
    },
    {
      case: "emailUser: added to the map",
      fact: { type: "emailUser", email: "cid@example.test", userId: "usr_cid" },
      expected: { emailUsers: { "bob@example.test": "usr_bob", "cid@example.test": "usr_cid" } },
    },
    {
      case: "sharesStale: forgotten, read at once",
      fact: { type: "sharesStale", dueAt: 7 },
      expected: { shares: undefined, driftDueAt: 7 },
    },
    {
      case: "memberRefused: the plan is blocked by it",
      fact: { type: "memberRefused", problem },
      expected: { problem, shares: [owner, ann] },
    },
    {
      case: "failed create, certain refusal: counted",
      fact: failed(create, 400, "validation_failed", "terminal"),
      expected: { refusedCreates: 1, uncertainCreate: false },
    },
    {
      case: "failed create, uncertain: looked up next, not counted",
      fact: failed(create, 504, "timeout", "uncertain"),
      expected: { refusedCreates: 0, uncertainCreate: true },
    },
    {
      case: "failed create, retryable: nothing",
      fact: failed(create, 503, "unavailable", "retryable"),
      expected: { refusedCreates: 0, uncertainCreate: false },
    },
    {
      case: "failed sharing call: the shares are read again",
      fact: failed(addAnn, 503, "unavailable", "retryable"),
      expected: { shares: undefined, driftDueAt: 5000 },
    },
    {
      case: "failed rename: nothing",
      fact: failed({ type: "rename", name: "x", fields: ["name"] }, 503, "unavailable", "retryable"),
      expected: {},
    },
  ])("$case", ({ start, fact, expected }) => {
    const before = known(start);
    const copy = structuredClone(before);
    expect(learnProject(before, fact)).toEqual({ ...before, ...expected });
    expect(before).toEqual(copy);
  });

  it("remembers only the memory's fields", () => {
    const memory = rememberProject(known({ problem, clusterApps: ["team/web"], lookedUpNothing: true }));
    expect(memory).toEqual({
      ...newProjectMemory(),
      project: { id: "p1", name: "demo" },
      shares: [owner, ann],
      emailUsers: { "bob@example.test": "usr_bob" },
      driftDueAt: 5000,
      readGeneration: 1,
    });
  });
});
