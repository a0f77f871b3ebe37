import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { PassThrough } from "node:stream";
import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { registerBuildInfo } from "../telemetry/metrics.ts";
import { readBuildInfo } from "./build-info.ts";
import { runCli } from "./run.ts";

const packageVersion = JSON.parse(
  readFileSync(new URL("../../package.json", import.meta.url), "utf8"),
).version;
const head = execFileSync("git", ["rev-parse", "--short=12", "HEAD"]).toString().trim();

function capture(): { stream: PassThrough; text: () => string } {
  const stream = new PassThrough();
  let text = "";
  stream.on("data", (chunk: Buffer) => {
    text += chunk.toString();
  });
  return { stream, text: () => text };
}

describe("build info", () => {
  it("names the package version, the checkout's commit and the Node.js that runs", () => {
    expect(readBuildInfo()).toEqual({ version: packageVersion, commit: head, node: process.version });
  });

  it("answers berth --version with one line and exit code 0", async () => {
    const stdout = capture();
    const stderr = capture();
    const code = await runCli(["--version"], {}, { stdout: stdout.stream, stderr: stderr.stream });
    expect(code).toBe(0);
    expect(stdout.text()).toBe(`berth ${packageVersion} (commit ${head}, node ${process.version})\n`);
    expect(stderr.text()).toBe("");
  });

  it("exports berth_build_info with version, commit and node labels", async () => {
    const registry = new Registry();
    registerBuildInfo(registry, { version: "1.2.3", commit: "abc123", node: "v24.0.0" });
    expect(await registry.metrics()).toContain(
      'berth_build_info{version="1.2.3",commit="abc123",node="v24.0.0"} 1',
    );
  });
});
