import { describe, expect, it } from "vitest";
import { type ProjectStatus, projectSchema } from "../../api/project.ts";
import { projectOutputs } from "./outputs.ts";

const project = projectSchema.parse({
  apiVersion: "berth.dev/v1alpha1",
  kind: "Project",
  metadata: { name: "demo" },
  spec: { outputs: { configMapName: "demo-outputs" } },
});

describe("projectOutputs", () => {
  it.each<[string, ProjectStatus, Record<string, string>]>([
    ["not created yet: no keys", {}, {}],
    ["created: its ID", { projectId: "a".repeat(24) }, { projectId: "a".repeat(24) }],
  ])("%s", (_, status, expected) => {
    expect(projectOutputs(project, status)).toEqual(expected);
  });
});
