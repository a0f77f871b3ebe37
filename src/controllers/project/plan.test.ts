import { describe, expect, it } from "vitest";
import { getCondition } from "../../api/conditions.ts";
import type { Project } from "../../api/project.ts";
import { stepsOf } from "../skeleton/cleanup.test-support.ts";
import { planFor } from "../skeleton/cleanup.ts";
import { aProject, me } from "./builders.test-support.ts";
import type { ProjectObserved } from "./memory.ts";
import { projectPlans } from "./plan.ts";
import type { ProjectPlan } from "./plan-common.ts";

const id = "a".repeat(24);
const now = new Date("2030-01-01T00:00:00Z");

function seen(extra: Partial<ProjectObserved> = {}): ProjectObserved {
  return {
    problem: undefined,
    me: me(),
    project: undefined,
    gone: false,
    clusterApps: [],
    serviceApps: undefined,
    requestId: "req_p",
    ...extra,
  };
}

const atService = (name = "demo") => ({ id, name, createdAt: "2030-01-01T00:00:00Z" });

function plan(project: Project, observed: ProjectObserved): ProjectPlan {
  return planFor(projectPlans, project, observed, now);
}

const conditionOf = (result: ProjectPlan, type: string) => {
  const c = getCondition(result.status.conditions, type);
  return c === undefined ? undefined : `${c.status}/${c.reason}`;
};

describe("planProject", () => {
  it.each([
    { case: "new, finalizer present", finalizers: ["berth.dev/finalizer"], actions: ["create"] },
    { case: "new, no finalizer", finalizers: [], actions: ["addFinalizer", "create"] },
  ])("$case → $actions", ({ finalizers, actions }) => {
    const result = plan(aProject({ displayName: "Demo" }, { finalizers }), seen());
    expect(stepsOf(result)).toEqual(actions);
    const create = result.actions.at(-1);
    expect(create).toMatchObject({
      type: "create",
      name: "Demo",
      idempotencyKey: expect.stringMatching(/^createProject\.uid-p\./),
    });
  });

  it.each([
    {
      case: "pinned key",
      key: me(["*"], [id]),
      reason: "KeyProjectRestricted",
      text: "pinned key cannot create",
    },
    {
      case: "no projects:write",
      key: me(["projects:read"]),
      reason: "MissingScopes",
      text: "projects:write",
    },
  ])("$case → Stalled $reason without calling", ({ key, reason, text }) => {
    const result = plan(aProject(), seen({ me: key }));
    expect(result.actions).toEqual([]);
    expect(conditionOf(result, "Stalled")).toBe(`True/${reason}`);
    expect(getCondition(result.status.conditions, "Stalled")?.message).toContain(text);
  });

  it("is Ready with the project's ID once it exists under the spec's name", () => {
    const result = plan(aProject(), seen({ project: atService() }));
    expect(result.actions).toEqual([]);
    expect(result.status.projectId).toBe(id);
    expect(conditionOf(result, "Ready")).toBe("True/Succeeded");
  });

  it("renames when displayName differs", () => {
    const result = plan(aProject({ displayName: "Renamed" }), seen({ project: atService() }));
    expect(result.actions).toEqual([{ type: "rename", name: "Renamed", fields: ["name"] }]);
  });

  it("adopts spec.projectId: records it and adds the finalizer", () => {
    const result = plan(aProject({ projectId: id }, { finalizers: [] }), seen({ project: atService() }));
    expect(stepsOf(result)).toEqual(["addFinalizer"]);
    expect(result.status.projectId).toBe(id);
  });

  describe("deleting", () => {
    const deleting = (spec = {}) =>
      aProject(spec, { deletionTimestamp: "2030-01-01T00:00:00Z" }, { projectId: id });

    it("waits (Reconciling DependentsExist) while Apps in the cluster use it", () => {
      const result = plan(deleting(), seen({ clusterApps: ["team/web"] }));
      expect(result.actions).toEqual([]);
      expect(conditionOf(result, "Reconciling")).toBe("True/DependentsExist");
      expect(getCondition(result.status.conditions, "Reconciling")?.message).toContain("team/web");
    });

    it("is Stalled while apps berth does not manage remain at the service", () => {
      const result = plan(deleting(), seen({ serviceApps: ["legacy"] }));
      expect(result.actions).toEqual([]);
      expect(conditionOf(result, "Stalled")).toBe("True/DependentsExist");
      expect(getCondition(result.status.conditions, "Stalled")?.message).toContain("legacy");
    });

    it.each([
      { case: "empty", spec: {}, extra: { serviceApps: [] }, actions: ["delete", "removeFinalizer"] },
      {
        case: "Orphan",
        spec: { deletionPolicy: "Orphan" as const },
        extra: {},
        actions: ["removeFinalizer"],
      },
      { case: "gone", spec: {}, extra: { gone: true }, actions: ["removeFinalizer"] },
    ])("$case → $actions", ({ spec, extra, actions }) => {
      expect(stepsOf(plan(deleting(spec), seen(extra)))).toEqual(actions);
    });

    it("refuses to delete without projects:admin", () => {
      const result = plan(deleting(), seen({ serviceApps: [], me: me(["projects:write", "apps:read"]) }));
      expect(result.actions).toEqual([]);
      expect(getCondition(result.status.conditions, "Stalled")?.message).toContain("projects:admin");
    });
  });

  it("suspended: no actions, Ready False Suspended", () => {
    const result = plan(aProject({ suspend: true }), seen());
    expect(result.actions).toEqual([]);
    expect(conditionOf(result, "Ready")).toBe("False/Suspended");
  });
});

describe("planProject: spec.members", () => {
  const owner = { userId: "u", email: "u@example.test", role: "owner", accountOwner: true };
  const ann = { userId: "usr_ann", email: "ann@example.test", role: "viewer" };
  const known = { project: atService(), shares: [owner, ann] };

  it("unset: no sharing call, no status.members, shares made by hand stay", () => {
    const result = plan(aProject({}, {}, { members: [{ userId: "old", role: "viewer" }] }), seen(known));
    expect(result.actions).toEqual([]);
    expect(result.status.members).toBeUndefined();
    expect(conditionOf(result, "Ready")).toBe("True/Succeeded");
  });

  it("[]: removes every share but the owner's", () => {
    const result = plan(aProject({ members: [] }), seen(known));
    expect(result.actions).toEqual([{ type: "removeMember", who: "ann@example.test", userId: "usr_ann" }]);
    expect(conditionOf(result, "Reconciling")).toBe("True/Progressing");
    expect(getCondition(result.status.conditions, "Reconciling")?.message).toContain(
      "remove ann@example.test",
    );
  });

  it("matching shares: Ready, status.members lists them with the owner marked", () => {
    const result = plan(aProject({ members: [{ email: "ann@example.test", role: "viewer" }] }), seen(known));
    expect(result.actions).toEqual([]);
    expect(conditionOf(result, "Ready")).toBe("True/Succeeded");
    expect(getCondition(result.status.conditions, "Ready")?.message).toContain("shared with 1 user(s)");
    expect(result.status.members).toEqual([
      { userId: "u", email: "u@example.test", role: "owner", owner: true },
      { userId: "usr_ann", email: "ann@example.test", role: "viewer" },
    ]);
  });

  it("shares not read yet: Reconciling, no sharing call planned", () => {
    const result = plan(
      aProject({ members: [{ userId: "usr_ann", role: "viewer" }] }),
      seen({ project: atService() }),
    );
    expect(result.actions).toEqual([]);
    expect(getCondition(result.status.conditions, "Reconciling")?.message).toContain(
      "reading the project's members",
    );
  });

  it.each([
    { case: "existing project", extra: known },
    { case: "before the create", extra: {} },
  ])("no projects:admin ($case) → Stalled MissingScopes naming it, nothing sent", ({ extra }) => {
    const key = me(["projects:write"]);
    const result = plan(
      aProject({ members: [{ userId: "usr_bob", role: "editor" }] }),
      seen({ ...extra, me: key }),
    );
    expect(result.actions).toEqual([]);
    expect(conditionOf(result, "Stalled")).toBe("True/MissingScopes");
    expect(getCondition(result.status.conditions, "Stalled")?.message).toContain("projects:admin");
  });

  it("demoting the owner → Stalled InvalidSpec, nothing sent", () => {
    const result = plan(aProject({ members: [{ userId: "u", role: "editor" }] }), seen(known));
    expect(result.actions).toEqual([]);
    expect(conditionOf(result, "Stalled")).toBe("True/InvalidSpec");
    expect(getCondition(result.status.conditions, "Stalled")?.message).toContain("never demotes");
  });

  it("renames and shares in one pass", () => {
    const result = plan(
      aProject({ displayName: "New", members: [{ userId: "usr_ann", role: "editor" }] }),
      seen(known),
    );
    expect(result.actions.map((a) => a.type)).toEqual(["rename", "changeMember"]);
  });
});

describe("planProject adoption", () => {
  it.each([
    { case: "not read yet", extra: {}, actions: [], stalled: undefined },
    { case: "gone at the service", extra: { gone: true }, actions: [], stalled: "True/ExternalNotFound" },
  ])("never turns an adoption into a creation: $case", ({ extra, actions, stalled }) => {
    const result = plan(aProject({ projectId: id }), seen(extra));
    expect(stepsOf(result)).toEqual(actions);
    if (stalled !== undefined) expect(conditionOf(result, "Stalled")).toBe(stalled);
  });
});

describe("planProject under policies that hold calls back: only the scopes of calls sent", () => {
  const observe: Partial<Project["spec"]> = { managementPolicies: ["Observe"] };
  const readOnly = me(["projects:read", "apps:read"]);
  it.each([
    {
      case: "[Observe], no project yet, read-only key: a create to hold back",
      project: aProject({ ...observe }),
      extra: { me: readOnly },
      actions: ["create"],
    },
    {
      case: "[Observe], no project yet, pinned key: a create to hold back, not KeyProjectRestricted",
      project: aProject({ ...observe }),
      extra: { me: me(["projects:read"], [id]) },
      actions: ["create"],
    },
    {
      case: "[Observe] adopting, name differs, read-only key: a rename to hold back",
      project: aProject({ ...observe, projectId: id, displayName: "Other" }),
      extra: { me: readOnly, project: atService() },
      actions: ["rename"],
    },
  ])("$case", ({ project, extra, actions }) => {
    const result = plan(project, seen(extra));
    expect(result.actions.map((a) => a.type)).toEqual(actions);
    expect(result.stalled).toBe(false);
    expect(conditionOf(result, "Stalled")).toBeUndefined();
  });

  it("[Observe] with spec.members and no projects:admin: Ready, the members said not compared", () => {
    const project = aProject({ ...observe, projectId: id, members: [{ userId: "usr_bob", role: "editor" }] });
    const result = plan(project, seen({ me: readOnly, project: atService() }));
    expect(result.actions).toEqual([]);
    expect(conditionOf(result, "Ready")).toBe("True/Succeeded");
    expect(getCondition(result.status.conditions, "Ready")?.message).toContain("spec.members not compared");
  });

  it('["*"] with the same read-only key is still Stalled MissingScopes', () => {
    const project = aProject({ projectId: id, displayName: "Other" });
    const result = plan(project, seen({ me: readOnly, project: atService() }));
    expect(conditionOf(result, "Stalled")).toBe("True/MissingScopes");
  });

  it("a held rename names the field that differs", () => {
    const project = aProject({ ...observe, projectId: id, displayName: "Other" });
    const result = plan(project, seen({ me: readOnly, project: atService() }));
    expect(result.actions).toEqual([{ type: "rename", name: "Other", fields: ["name"] }]);
  });
});
