import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";

/** What a running berth was built from: in `berth --version`, the first log line and berth_build_info. */
export interface BuildInfo {
  version: string;
  commit: string;
  node: string;
}

const packageSchema = z.object({ version: z.string().min(1) });
const buildFileSchema = z.object({ commit: z.string() });

/**
 * The package version from package.json (one folder above src/ and dist/ alike); the commit from
 * dist/build-info.json, which the image build writes, else from git in a checkout, else "unknown".
 */
export function readBuildInfo(): BuildInfo {
  const root = new URL("../../", import.meta.url);
  const { version } = packageSchema.parse(JSON.parse(readFileSync(new URL("package.json", root), "utf8")));
  return {
    version,
    commit: builtCommit() ?? gitCommit(fileURLToPath(root)) ?? "unknown",
    node: process.version,
  };
}

function builtCommit(): string | undefined {
  try {
    const file = readFileSync(new URL("../build-info.json", import.meta.url), "utf8");
    const commit = buildFileSchema.parse(JSON.parse(file)).commit.trim();
    return commit === "" ? undefined : commit;
  } catch {
    return undefined;
  }
}

/** Only in berth's own checkout: an installed package must not report its user's repository. */
function gitCommit(cwd: string): string | undefined {
  if (!existsSync(path.join(cwd, ".git"))) return undefined;
  try {
    const head = execFileSync("git", ["rev-parse", "--short=12", "HEAD"], {
      cwd,
      stdio: ["ignore", "pipe", "ignore"],
      timeout: 2000,
    });
    return head.toString().trim() || undefined;
  } catch {
    return undefined;
  }
}

/** `berth --version`: one line a bug report can quote. */
export function versionLine(info: BuildInfo): string {
  return `berth ${info.version} (commit ${info.commit}, node ${info.node})`;
}
