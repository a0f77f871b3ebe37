import { describe, expect, it } from "vitest";
import type { KubeObject } from "../../runtime/index.ts";
import { secretInUse } from "./usage.ts";

const resource = (name: string, finalizers: string[], secret: string) => ({
  object: { metadata: { name, namespace: "team", finalizers }, spec: {} } as KubeObject,
  secret,
});

describe("secretInUse", () => {
  const resources = [
    resource("app", ["berth.dev/finalizer"], "team/berth-credentials"),
    resource("released", [], "team/other"),
    resource("grid", ["berth.dev/finalizer"], "team/grid-key"),
  ];
  const resolve = (object: KubeObject) => resources.find((r) => r.object === object)?.secret;
  const objects = resources.map((r) => r.object);

  it.each([
    ["team/berth-credentials", true],
    ["team/grid-key", true],
    // Only resources holding berth's finalizer may still need a key to delete their external object.
    ["team/other", false],
    ["team/unused", false],
  ])("%s in use → %s", (key, expected) => {
    expect(secretInUse(key, objects, resolve)).toBe(expected);
  });
});
