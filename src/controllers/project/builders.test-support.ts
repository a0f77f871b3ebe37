import type { Project } from "../../api/project.ts";
import type { Me } from "../../hosting/index.ts";
import { newProjectMemory, type ProjectKnowledge } from "./memory.ts";

// Builders for the Project controller's unit tests (not shipped behaviour).

export function aProject(
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

export function me(scopes: string[] = ["*"], projectIds: string[] = [], userId = "u"): Me {
  return {
    user: { id: userId, email: `${userId}@example.test` },
    apiKey: { id: "k", scopes, projectIds, expiresAt: null },
    oauthClient: null,
  };
}

/** What a reconcile knows: fresh memory, nothing read, and `extra`. */
export function projectKnowledge(extra: Partial<ProjectKnowledge> = {}): ProjectKnowledge {
  return {
    ...newProjectMemory(),
    problem: undefined,
    me: undefined,
    clusterApps: [],
    serviceApps: undefined,
    requestId: undefined,
    ...extra,
  };
}
