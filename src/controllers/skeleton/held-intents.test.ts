import { describe, expect, it } from "vitest";
import type { KubeObject } from "../../runtime/index.ts";
import { intentsHeld } from "./held-intents.ts";

const pending = (key: string) => ({ operation: "createApp", key, state: "Pending" });

function object(owned: string, status: unknown): KubeObject {
  return {
    apiVersion: "berth.dev/v1alpha1",
    kind: "App",
    metadata: { name: "web", namespace: "team", annotations: { "berth.dev/owned": owned } },
    status,
  } as KubeObject;
}

describe("the calls a resource holds", () => {
  it("are those in its status, and those its annotation holds for a restore; a mangled one adds none", () => {
    const status = { intents: [pending("k1")] };
    const held = object(JSON.stringify({ intents: [pending("k2")] }), status);
    expect(intentsHeld(held).map((i) => i.key)).toEqual(["k1", "k2"]);
    expect(intentsHeld(object("{", status)).map((i) => i.key)).toEqual(["k1"]);
  });
});
