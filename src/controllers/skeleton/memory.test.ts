import { describe, expect, it } from "vitest";
import { annotations, finalizer } from "../../api/meta.ts";
import { newReadMemory } from "./memory.ts";

describe("a resource met for the first time", () => {
  const withFinalizer = { finalizers: [finalizer] };
  it.each([
    [
      "the finalizer from a release without intents: a create may have acted",
      { metadata: withFinalizer },
      true,
    ],
    ["no finalizer: nothing was ever sent", { metadata: {} }, false],
    [
      "the finalizer and berth.dev/owned: today's release, whose intents say what was sent",
      { metadata: { ...withFinalizer, annotations: { [annotations.owned]: "{}" } } },
      false,
    ],
    [
      "the finalizer and status.intents (even empty)",
      { metadata: withFinalizer, status: { intents: [] } },
      false,
    ],
  ])("%s", (_, met, uncertain) => {
    expect(newReadMemory(met).uncertainCreate).toBe(uncertain);
  });

  it("not met at all: no lookup", () => {
    expect(newReadMemory().uncertainCreate).toBe(false);
  });
});
