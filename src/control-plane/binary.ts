import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, rename, rm } from "node:fs/promises";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import type { Logger } from "../telemetry/logger.ts";
import { ControlPlaneError } from "./errors.ts";

export const packageRoot = fileURLToPath(new URL("../..", import.meta.url));
export const goSourceDir = path.join(packageRoot, "hack", "control-plane");

/** `go build` arguments; the Kubernetes version from go.mod is stamped in so `kubectl version` reports it. */
export async function goBuildArgs(output: string, sourceDir = goSourceDir): Promise<string[]> {
  const goMod = await readFile(path.join(sourceDir, "go.mod"), "utf8");
  const version = /^\s*k8s\.io\/kubernetes (v(\d+)\.(\d+)\.\d+)/m.exec(goMod);
  const stamp = version
    ? [
        `-X k8s.io/component-base/version.gitVersion=${version[1]}`,
        `-X k8s.io/component-base/version.gitMajor=${version[2]}`,
        `-X k8s.io/component-base/version.gitMinor=${version[3]}`,
        "-X k8s.io/component-base/version.gitTreeState=clean",
      ]
    : [];
  return ["build", "-trimpath", `-ldflags=-s -w ${stamp.join(" ")}`, "-o", output, "."];
}

/** Hash of the Go program's sources and build flags: the binary is rebuilt whenever they change. */
export async function sourceHash(sourceDir = goSourceDir): Promise<string> {
  const names = (await readdir(sourceDir))
    .filter((n) => n.endsWith(".go") || n === "go.mod" || n === "go.sum")
    .sort();
  const hash = createHash("sha256").update((await goBuildArgs("", sourceDir)).join(" "));
  for (const name of names) {
    hash
      .update(name)
      .update("\0")
      .update(await readFile(path.join(sourceDir, name)))
      .update("\0");
  }
  return hash.digest("hex").slice(0, 16);
}

/** Finds `go`: $GO, then PATH, then the usual install location. */
export async function findGo(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const candidates = [env.GO, "go", "/usr/local/go/bin/go"].filter((c): c is string => Boolean(c));
  for (const candidate of candidates) {
    if (await runs(candidate, ["version"])) return candidate;
  }
  throw new ControlPlaneError(
    "go_missing",
    "the local control plane is built from Go sources, but no Go toolchain was found: install Go 1.24 or newer " +
      "(https://go.dev/dl/ or your package manager) and put `go` on PATH, or set GO to its path",
  );
}

function runs(command: string, args: string[]): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: "ignore" });
    child.on("error", () => resolve(false));
    child.on("exit", (code) => resolve(code === 0));
  });
}

export interface EnsureBinaryOptions {
  logger: Logger;
  /** Where built binaries are kept; defaults to .berth/bin under the package root. */
  binDir?: string;
  env?: NodeJS.ProcessEnv;
  /** Progress lines of a build for the person waiting (every few seconds); none when the binary exists. */
  progress?: (line: string) => void;
  progressEveryMs?: number;
}

/** Returns the path of the control-plane binary for the current sources, building it if needed. */
export async function ensureBinary(options: EnsureBinaryOptions): Promise<string> {
  const env = options.env ?? process.env;
  const binDir = options.binDir ?? path.join(packageRoot, ".berth", "bin");
  const binary = path.join(binDir, `control-plane-${await sourceHash()}`);
  if (existsSync(binary)) return binary;

  const go = await findGo(env);
  await mkdir(binDir, { recursive: true });
  const partial = `${binary}.${process.pid}.partial`;
  options.logger.info(
    { binary },
    "building the control plane from hack/control-plane (a cold build takes minutes)",
  );
  const started = Date.now();
  const output = await runGoBuild(go, partial, env, options);
  if (output.code !== 0) {
    await rm(partial, { force: true });
    throw new ControlPlaneError(
      "build_failed",
      `go build of hack/control-plane failed:\n${output.log.slice(-4000)}`,
    );
  }
  // Rename is atomic, so concurrent builders never see a half-written binary.
  await rename(partial, binary);
  await removeStaleBinaries(binDir, binary);
  options.logger.info({ binary, seconds: (Date.now() - started) / 1000 }, "control plane built");
  return binary;
}

/** Old builds are 100+ MB each; a running process keeps its copy open, so deleting is safe. */
async function removeStaleBinaries(binDir: string, current: string): Promise<void> {
  const stale = (await readdir(binDir)).filter(
    (name) =>
      name.startsWith("control-plane-") && !name.endsWith(".partial") && path.join(binDir, name) !== current,
  );
  await Promise.all(stale.map((name) => rm(path.join(binDir, name), { force: true })));
}

/**
 * `go build -v` names each package as it compiles it (cached ones are not named), so counting
 * those lines against `go list -deps` gives "packages compiled of the total" while it runs.
 */
async function runGoBuild(
  go: string,
  output: string,
  env: NodeJS.ProcessEnv,
  { progress, progressEveryMs = 5_000 }: EnsureBinaryOptions,
): Promise<{ code: number; log: string }> {
  const args = await goBuildArgs(output);
  const goEnv = { ...env, CGO_ENABLED: "0", GOTOOLCHAIN: "local" };
  const started = Date.now();
  let compiled = 0;
  let total: number | undefined;
  if (progress) void countPackages(go, goEnv).then((n) => (total = n));
  const ticker = progress
    ? setInterval(() => progress(buildProgressLine(Date.now() - started, compiled, total)), progressEveryMs)
    : undefined;
  try {
    return await new Promise((resolve, reject) => {
      const child = spawn(go, [args[0] ?? "build", "-v", ...args.slice(1)], {
        cwd: goSourceDir,
        env: goEnv,
        stdio: ["ignore", "pipe", "pipe"],
      });
      let log = "";
      child.stdout.on("data", (chunk: Buffer) => {
        log += chunk.toString();
      });
      // -v writes package names to stderr, one a line; errors go there too.
      createInterface({ input: child.stderr }).on("line", (line) => {
        if (isPackageName(line)) compiled += 1;
        else log += `${line}\n`;
      });
      child.on("error", reject);
      child.on("close", (code) => resolve({ code: code ?? 1, log }));
    });
  } finally {
    clearInterval(ticker);
  }
}

/** "building the control plane: 312 of 1650 packages compiled, 45s" (the total once `go list` knows it). */
export function buildProgressLine(elapsedMs: number, compiled: number, total: number | undefined): string {
  const of = total === undefined ? "" : ` of ${total}`;
  return `building the control plane: ${compiled}${of} packages compiled, ${Math.round(elapsedMs / 1000)}s`;
}

function countPackages(go: string, env: NodeJS.ProcessEnv): Promise<number | undefined> {
  return new Promise((resolve) => {
    const child = spawn(go, ["list", "-deps", "."], {
      cwd: goSourceDir,
      env,
      stdio: ["ignore", "pipe", "ignore"],
    });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.on("error", () => resolve(undefined));
    child.on("exit", (code) => resolve(code === 0 ? out.split("\n").filter(Boolean).length : undefined));
  });
}

/** A line of `go build -v`: an import path such as `k8s.io/apiserver/pkg/server`. */
function isPackageName(line: string): boolean {
  return /^[\w.-]+(\/[\w.~-]+)*$/.test(line);
}
