import { describe, expect, it } from "vitest";
import type { KubeObject } from "../../runtime/index.ts";
import { older, withoutCopiedIntents } from "./copied-intents.ts";

const pending = (key: string, operation = "createApp") => ({ operation, key, state: "Pending" });

function object(owned: unknown, status?: unknown): KubeObject {
  const annotations = owned === undefined ? {} : { "berth.dev/owned": JSON.stringify(owned) };
  return {
    apiVersion: "berth.dev/v1alpha1",
    kind: "App",
    metadata: { name: "web-copy", namespace: "team", annotations },
    ...(status === undefined ? {} : { status }),
  } as KubeObject;
}

describe("withoutCopiedIntents: a copy drops the calls an older resource holds", () => {
  it.each([
    {
      case: "the original holds the copy's only call: the call goes, the rest stays",
      copy: object({ projectId: "p1", intents: [pending("k1")] }),
      others: ["k1"],
      expected: { value: JSON.stringify({ projectId: "p1" }), dropped: ["createApp"] },
    },
    {
      case: "only the call it holds goes",
      copy: object({ intents: [pending("k1"), pending("k2", "moveApp")] }),
      others: ["k2"],
      expected: { value: JSON.stringify({ intents: [pending("k1")] }), dropped: ["moveApp"] },
    },
    {
      case: "nothing else left: the annotation goes",
      copy: object({ intents: [pending("k1")] }),
      others: ["k1"],
      expected: { value: null, dropped: ["createApp"] },
    },
    {
      case: "no one else holds it (a restore)",
      copy: object({ intents: [pending("k1")] }),
      others: ["k9"],
      expected: undefined,
    },
    {
      case: "its status records calls of its own: status wins",
      copy: object({ intents: [pending("k1")] }, { intents: [pending("k1")] }),
      others: ["k1"],
      expected: undefined,
    },
    { case: "no annotation", copy: object(undefined), others: ["k1"], expected: undefined },
  ])("$case", ({ copy, others, expected }) => {
    expect(withoutCopiedIntents(copy, new Set(others))).toEqual(expected);
  });
});

describe("older: of two resources carrying one call, exactly one keeps it", () => {
  const at = (name: string, creationTimestamp: string) =>
    ({ ...object(undefined), metadata: { name, namespace: "team", creationTimestamp } }) as KubeObject;
  it.each([
    {
      case: "created earlier",
      a: at("web", "2030-01-01T00:00:00Z"),
      b: at("copy", "2030-01-01T00:00:01Z"),
      older: true,
    },
    {
      case: "created later",
      a: at("web", "2030-01-01T00:00:02Z"),
      b: at("copy", "2030-01-01T00:00:01Z"),
      older: false,
    },
    {
      case: "the same second: by name",
      a: at("a", "2030-01-01T00:00:00Z"),
      b: at("b", "2030-01-01T00:00:00Z"),
      older: true,
    },
  ])("$case: $older, and never both", ({ a, b, older: expected }) => {
    expect(older(a, b)).toBe(expected);
    expect(older(b, a)).toBe(!expected);
    expect(older(a, a)).toBe(false);
  });
});
