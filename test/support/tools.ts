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
 * The path of a tool: `.berth/tools`, then Go's default GOBIN, then PATH. The integration run's
 * global setup installs missing ones first (`installMissingTools`), so missing here is a bug.
 */
export function goTool(name: ToolName): string {
  const found = findTool(name);
  if (found !== undefined) return found;
  throw new Error(
    `${name} not found in .berth/tools, $GOPATH/bin or PATH (the integration run installs it): install it with\n` +
      `  GOBIN="$PWD/.berth/tools" GOFLAGS=-mod=mod go install ${installs[name]}`,
  );
}

/**
 * Installs the tools not found, with one line saying so. A cold `go install` takes minutes;
 * Go's module and build caches make a rerun take seconds.
 */
export async function installMissingTools(say: (line: string) => void): Promise<void> {
  const missing = (Object.keys(installs) as ToolName[]).filter((name) => findTool(name) === undefined);
  if (missing.length === 0) return;
  const go = await findGo();
  say(
    `installing ${missing.join(" and ")} into .berth/tools with go install (first use only; minutes cold, seconds from Go's cache)`,
  );
  const run = promisify(execFile);
  for (const name of missing) {
    await run(go, ["install", installs[name]], {
      cwd: repoRoot,
      env: { ...process.env, GOBIN: toolsDir, GOFLAGS: "-mod=mod" },
      maxBuffer: 16 * 1024 * 1024,
    }).catch((error: unknown) => {
      const stderr = (error as { stderr?: string }).stderr ?? String(error);
      throw new Error(`go install ${installs[name]} failed:\n${stderr.slice(-4000)}`);
    });
  }
}
