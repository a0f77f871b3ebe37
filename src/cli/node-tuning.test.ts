import { describe, expect, it } from "vitest";
import { tunedStart } from "./node-tuning.ts";

const node = (execArgv: string[] = [], env: Record<string, string | undefined> = { HOME: "/root" }) => ({
  execPath: "/usr/bin/node",
  execArgv,
  argv: ["/usr/bin/node", "/app/main.js", "operator", "--namespace", "a"],
  env,
});

describe("tunedStart", () => {
  it("starts the operator again with the tuning flags and environment, its own arguments unchanged", () => {
    expect(tunedStart("operator", node(["--enable-source-maps"]))).toEqual({
      args: [
        "/usr/bin/node",
        "--max-opt=2",
        "--no-concurrent-recompilation",
        "--max-semi-space-size=8",
        "--heap-growing-percent=20",
        "--enable-source-maps",
        "/app/main.js",
        "operator",
        "--namespace",
        "a",
      ],
      env: { MALLOC_ARENA_MAX: "2", HOME: "/root", BERTH_NODE_TUNING: "applied" },
    });
  });

  it("starts once: not again when applied, nor when turned off, nor for other commands", () => {
    expect(tunedStart("operator", node([], { BERTH_NODE_TUNING: "applied" }))).toBeUndefined();
    expect(tunedStart("operator", node([], { BERTH_NODE_TUNING: "off" }))).toBeUndefined();
    expect(tunedStart("simulator", node())).toBeUndefined();
    expect(tunedStart(undefined, node())).toBeUndefined();
  });

  it("keeps what the user chose: their flag of the same name and their environment win", () => {
    const tuned = tunedStart("operator", node(["--max-opt=4"], { MALLOC_ARENA_MAX: "8" }));
    expect(tuned?.args.slice(0, 5)).toEqual([
      "/usr/bin/node",
      "--no-concurrent-recompilation",
      "--max-semi-space-size=8",
      "--heap-growing-percent=20",
      "--max-opt=4",
    ]);
    expect(tuned?.env.MALLOC_ARENA_MAX).toBe("8");
  });

  it("leaves a flag the user set in NODE_OPTIONS to them", () => {
    const tuned = tunedStart("operator", node([], { NODE_OPTIONS: "--max-semi-space-size=16  --trace-gc" }));
    expect(tuned?.args).not.toContain("--max-semi-space-size=8");
    expect(tuned?.args).toContain("--heap-growing-percent=20");
  });
});
