import { execFile } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { findGo } from "../../src/control-plane/binary.ts";

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
const toolsDir = path.join(repoRoot, ".berth", "tools");

/** The Go tools the deploy tests run, installed on first use with `go install` into `.berth/tools`. */
const installs = {
  helm: "helm.sh/helm/v4/cmd/helm@v4.3.1",
  promtool: "github.com/prometheus/prometheus/cmd/promtool@v0.316.0",
} as const;

type ToolName = keyof typeof installs;

function findTool(name: ToolName): string | undefined {
  const gopath = process.env.GOPATH?.split(":")[0] ?? path.join(homedir(), "go");
  const dirs = [toolsDir, path.join(gopath, "bin"), ...(process.env.PATH ?? "").split(":")];
  for (const dir of dirs) {
    const candidate = path.join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/**
 * The path of a tool: `.berth/tools`, then Go's default GOBIN, then PATH. Not found, it is
 * installed first with `go install` into `.berth/tools`, with one line saying so (a cold install
 * takes minutes; Go's module and build caches make a rerun take seconds). Only the test files
 * that run a tool wait for it.
 */
export async function goTool(
  name: ToolName,
  say = (line: string) => process.stderr.write(`${line}\n`),
): Promise<string> {
  const found = findTool(name);
  if (found !== undefined) return found;
  const go = await findGo();
  say(`installing ${name} into .berth/tools: go install ${installs[name]} (first use only; minutes cold)`);
  await promisify(execFile)(go, ["install", installs[name]], {
    cwd: repoRoot,
    env: { ...process.env, GOBIN: toolsDir, GOFLAGS: "-mod=mod" },
    maxBuffer: 16 * 1024 * 1024,
  }).catch((error: unknown) => {
    const stderr = (error as { stderr?: string }).stderr ?? String(error);
    throw new Error(`go install ${installs[name]} failed:\n${stderr.slice(-4000)}`);
  });
  const installed = findTool(name);
  if (installed === undefined) throw new Error(`go install ${installs[name]} left no ${name} in ${toolsDir}`);
  return installed;
}
