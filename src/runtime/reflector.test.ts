import { describe, expect, it } from "vitest";
import type { KubeObject } from "./object.ts";
import { stripForCache } from "./reflector.ts";

const lastApplied = "kubectl.kubernetes.io/last-applied-configuration";

function app(metadata: Record<string, unknown>): KubeObject {
  return JSON.parse(
    JSON.stringify({ metadata: { name: "web", namespace: "team", ...metadata }, spec: { a: 1 } }),
  );
}

describe("stripForCache", () => {
  it("drops managedFields and keeps everything else", () => {
    const object = stripForCache(
      app({ uid: "u", managedFields: [{ manager: "kubectl" }], finalizers: ["f"] }),
    );
    expect(object.metadata).toEqual({ name: "web", namespace: "team", uid: "u", finalizers: ["f"] });
    expect(object).toMatchObject({ spec: { a: 1 } });
  });

  it("drops kubectl's last-applied annotation, and the annotations when nothing else is left", () => {
    const both = stripForCache(app({ annotations: { [lastApplied]: "{…}", "berth.dev/x": "1" } }));
    expect(both.metadata.annotations).toEqual({ "berth.dev/x": "1" });
    const only = stripForCache(app({ annotations: { [lastApplied]: "{…}" } }));
    expect(only.metadata).not.toHaveProperty("annotations");
  });

  it("keeps other annotations when there is no last-applied one", () => {
    const object = stripForCache(app({ managedFields: [], annotations: { "berth.dev/x": "1" } }));
    expect(object.metadata).toEqual({ name: "web", namespace: "team", annotations: { "berth.dev/x": "1" } });
  });
});
