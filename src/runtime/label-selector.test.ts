import { describe, expect, it } from "vitest";
import { LabelSelectorError, parseLabelSelector } from "./label-selector.ts";

const shard1 = { "berth.dev/shard": "shard1", app: "web" };
const shard2 = { "berth.dev/shard": "shard2" };
const none = { app: "web" };

describe("parseLabelSelector", () => {
  it.each([
    ["", [true, true, true]],
    ["!berth.dev/shard", [false, false, true]],
    ["berth.dev/shard", [true, true, false]],
    ["berth.dev/shard in (shard1)", [true, false, false]],
    ["berth.dev/shard in (shard1, shard2)", [true, true, false]],
    ["berth.dev/shard notin (shard1)", [false, true, true]],
    ["berth.dev/shard=shard2", [false, true, false]],
    ["berth.dev/shard==shard1,app=web", [true, false, false]],
    ["berth.dev/shard!=shard1", [false, true, true]],
    ["berth.dev/shard in (shard1,shard2), app", [true, false, false]],
  ])("%j selects as the apiserver does", (text, expected) => {
    const selector = parseLabelSelector(text);
    expect([shard1, shard2, none].map((labels) => selector.matches(labels))).toEqual(expected);
  });

  it("treats missing labels as none", () => {
    expect(parseLabelSelector("!berth.dev/shard").matches(undefined)).toBe(true);
  });

  it.each(["berth.dev/shard in shard1", "a=b=c", "=x", "a in ()x", "key with space"])(
    "refuses %j, naming the forms it accepts",
    (text) => {
      expect(() => parseLabelSelector(text)).toThrow(LabelSelectorError);
      expect(() => parseLabelSelector(text)).toThrow(/use key, !key, key=value/);
    },
  );
});
