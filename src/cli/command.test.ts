import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { booleanish, closest, defineCommand, parseConfig, UsageError } from "./command.ts";
import { runCli } from "./run.ts";

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

describe("a mistyped flag or command", () => {
  it("names the unknown flag and suggests the nearest one", () => {
    expect(() => parseConfig(command, ["--adr", "x"], {})).toThrow("unknown flag --adr");
    try {
      parseConfig(command, ["--secrue=false"], {});
      expect.unreachable();
    } catch (error) {
      expect((error as UsageError).hint).toMatch(/^did you mean --secure\?/);
    }
  });

  it("suggests nothing far from every flag", () => {
    expect(closest("kubeconfig", ["secure", "addr"])).toBeUndefined();
    expect(closest("metrics-adr", ["metrics-addr", "health-addr"])).toBe("metrics-addr");
  });

  it("prints the error and, on the last line, what was meant: not the whole usage", async () => {
    const stderr = new PassThrough();
    let text = "";
    stderr.on("data", (chunk: Buffer) => {
      text += chunk.toString();
    });
    const code = await runCli(["dev", "--simulator-prot", "0"], {}, { stdout: new PassThrough(), stderr });
    expect(code).toBe(2);
    const lines = text.trimEnd().split("\n");
    expect(lines).toEqual([
      "berth dev: unknown flag --simulator-prot",
      'did you mean --simulator-port? ("berth dev --help" lists every flag)',
    ]);

    text = "";
    expect(await runCli(["operater"], {}, { stdout: new PassThrough(), stderr })).toBe(2);
    expect(text.trimEnd().split("\n").at(-1)).toBe('did you mean "berth operator"?');
  }, 30_000); // loads the dev command's modules

  it.each([
    [["dev", "--dir"], "berth dev: Option '--dir <value>' argument missing"],
    [["trace", "app/web", "-o", "yaml"], "berth trace: invalid trace options:"],
    [["trace", "web"], 'berth trace: expected <kind>/<name>, got "web"'],
    [
      ["trace", "app/web", "--kubeconfig", "/nonexistent/kubeconfig"],
      "berth trace: cannot read the kubeconfig: ",
    ],
  ])(
    "refuses %j with one line that says what is wrong, then what to do",
    async (argv, first) => {
      const stderr = new PassThrough();
      let text = "";
      stderr.on("data", (chunk: Buffer) => {
        text += chunk.toString();
      });
      expect(await runCli(argv, {}, { stdout: new PassThrough(), stderr })).toBe(2);
      expect(text.split("\n")[0]).toContain(first);
      expect(text.trimEnd().split("\n").at(-1)).toMatch(/berth (dev|trace)|kinds: /);
    },
    30_000,
  );
});
