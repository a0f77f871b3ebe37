import { accessSync, constants } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));

/** The Go tools the tests run, as `.ci/run` installs them. */
const installs = {
  helm: "helm.sh/helm/v4/cmd/helm@v4.3.1",
  promtool: "github.com/prometheus/prometheus/cmd/promtool@v0.316.0",
} as const;

/**
 * The path of a tool `.ci/run` installs: `.berth/tools` (its GOBIN), then Go's default GOBIN, then
 * PATH. Missing, it fails the test with the command that installs it.
 */
export function goTool(name: keyof typeof installs): string {
  const gopath = process.env.GOPATH?.split(":")[0] ?? path.join(homedir(), "go");
  const dirs = [
    path.join(repoRoot, ".berth", "tools"),
    path.join(gopath, "bin"),
    ...(process.env.PATH ?? "").split(":"),
  ];
  for (const dir of dirs) {
    const candidate = path.join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  throw new Error(
    `${name} not found in .berth/tools, $GOPATH/bin or PATH: install it with\n` +
      `  GOBIN="$PWD/.berth/tools" GOFLAGS=-mod=mod go install ${installs[name]}\n(bash .ci/run does this)`,
  );
}
