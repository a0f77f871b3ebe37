#!/usr/bin/env node
import { nodeVersionProblem } from "./cli/node-version.ts";

// Checked before the CLI loads: on an older Node its dependencies fail deep inside with no hint why.
const problem = nodeVersionProblem(process.versions.node);
if (problem !== undefined) {
  process.stderr.write(`${problem}\n`);
  process.exit(2);
}
const { tunedStart } = await import("./cli/node-tuning.ts");
const tuned = tunedStart(process.argv[2], process);
if (tuned !== undefined && process.platform !== "win32" && typeof process.execve === "function") {
  process.execve(process.execPath, tuned.args, tuned.env);
}
const { runCli } = await import("./cli/run.ts");
process.exitCode = await runCli(process.argv.slice(2), process.env);
