import { describe, expect, it } from "vitest";
import type { KubeObject } from "../../runtime/index.ts";
import { copiedFrom } from "./copied-owned.ts";

function app(namespace: string, name: string, of?: string): KubeObject {
  const owned =
    of === undefined ? undefined : JSON.stringify({ of, intents: [{ key: "k1", state: "Pending" }] });
  return {
    apiVersion: "berth.dev/v1alpha1",
    kind: "App",
    metadata: { name, namespace, annotations: owned === undefined ? {} : { "berth.dev/owned": owned } },
  } as KubeObject;
}

describe("copiedFrom: whose berth.dev/owned a resource carries, while that one is there", () => {
  const there = new Set(["team/web"]);
  it.each([
    { case: "a copy under another name", object: app("team", "web-copy", "team/web"), expected: "team/web" },
    { case: "a copy in another namespace", object: app("other", "web", "team/web"), expected: "team/web" },
    {
      case: "its own (a restore keeps name and namespace)",
      object: app("team", "web", "team/web"),
      expected: undefined,
    },
    {
      case: "the original is gone (a restore into another namespace)",
      object: app("other", "web", "team/gone"),
      expected: undefined,
    },
    {
      case: "an annotation that does not say (an earlier version's)",
      object: app("team", "web-copy"),
      expected: undefined,
    },
  ])("$case", ({ object, expected }) => {
    expect(copiedFrom(object, (key) => there.has(key))).toBe(expected);
  });
});
