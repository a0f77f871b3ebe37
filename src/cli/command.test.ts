import { describe, expect, it } from "vitest";
import { z } from "zod";
import { booleanish, defineCommand, parseConfig, UsageError } from "./command.ts";

const command = defineCommand({
  name: "demo",
  summary: "a command with a boolean that defaults to true",
  flags: { secure: { description: "secure", type: "boolean" }, addr: { description: "address" } },
  config: z.object({ secure: booleanish.default(true), addr: z.string().optional() }),
  run: async () => 0,
});

describe("parseConfig", () => {
  it.each([
    [[], {}, true],
    [["--secure"], {}, true],
    [["--secure=false"], {}, false],
    [["--secure=0"], {}, false],
    [[], { BERTH_SECURE: "false" }, false],
    [["--secure=true"], { BERTH_SECURE: "false" }, true],
  ])("reads a boolean from %j and %j", (argv, env, secure) => {
    expect(parseConfig(command, argv, env)).toMatchObject({ secure });
  });

  it("names a bad boolean value", () => {
    expect(() => parseConfig(command, ["--secure=maybe"], {})).toThrow(UsageError);
    expect(() => parseConfig(command, ["--secure=maybe"], {})).toThrow(/--secure \(or BERTH_SECURE\)/);
  });

  it("keeps = inside string values", () => {
    expect(parseConfig(command, ["--addr=a=b"], {})).toMatchObject({ addr: "a=b" });
  });
});
