import { describe, expect, it } from "vitest";
import type { KubeObject } from "../../runtime/index.ts";
import { heldKeys } from "./held-intents.ts";

const pending = (key: string) => ({ operation: "createApp", key, state: "Pending" });

function object(owned: string, status: unknown): KubeObject {
  return {
    apiVersion: "berth.dev/v1alpha1",
    kind: "App",
    metadata: { name: "web", namespace: "team", annotations: { "berth.dev/owned": owned } },
    status,
  } as KubeObject;
}

describe("heldKeys: the calls a resource holds", () => {
  it("reads them from status and from berth.dev/owned, and nothing from a mangled annotation", () => {
    const status = { intents: [pending("k1")] };
    expect(heldKeys(object(JSON.stringify({ intents: [pending("k2")] }), status))).toEqual(["k1", "k2"]);
    expect(heldKeys(object("{", status))).toEqual(["k1"]);
  });
});
