import { describe, expect, it } from "vitest";
import { getCondition } from "../../api/conditions.ts";
import type { Project } from "../../api/project.ts";
import type { Me } from "../../hosting/index.ts";
import type { ProjectObserved } from "./observed.ts";
import { type ProjectPlan, planProject } from "./plan.ts";

const id = "a".repeat(24);
const now = new Date("2030-01-01T00:00:00Z");

function aProject(
  spec: Partial<Project["spec"]> = {},
  metadata: Partial<Project["metadata"]> = {},
  status?: Project["status"],
): Project {
  return {
    apiVersion: "berth.dev/v1alpha1",
    kind: "Project",
    metadata: {
      name: "demo",
      namespace: "team",
      uid: "uid-p",
      generation: 1,
      finalizers: ["berth.dev/finalizer"],
      ...metadata,
    },
    spec: { deletionPolicy: "Delete", suspend: false, ...spec },
    ...(status === undefined ? {} : { status }),
  };
}

function me(scopes: string[] = ["*"], projectIds: string[] = []): Me {
  return {
    user: { id: "u", email: "u@example.test" },
    apiKey: { id: "k", scopes, projectIds, expiresAt: null },
    oauthClient: null,
  };
}

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
  return planProject({ project, observed, now });
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
    expect(result.actions.map((a) => a.type)).toEqual(actions);
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
    expect(result.actions).toEqual([{ type: "rename", name: "Renamed" }]);
  });

  it("adopts spec.projectId: records it and adds the finalizer", () => {
    const result = plan(aProject({ projectId: id }, { finalizers: [] }), seen({ project: atService() }));
    expect(result.actions).toEqual([{ type: "addFinalizer" }]);
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
      expect(plan(deleting(spec), seen(extra)).actions.map((a) => a.type)).toEqual(actions);
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
