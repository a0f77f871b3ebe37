import { execFile, spawn } from "node:child_process";
import { access, mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

/**
 * The last commit of the previous release (before CRD revisions and status.intents): the version
 * the upgrade test installs first. Move it on to the last commit of each release once it is cut.
 */
export const previousRelease = "774738912ba59c554931d0b6e573fa7b324fede7";

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
const run = promisify(execFile);

/**
 * The previous release's sources, with its runtime dependencies installed, in
 * `.berth/previous-release/<commit>` (kept for later runs). Taken with `git archive`, so the
 * repository's worktrees are left alone; a clone without that commit (a shallow one) fails with
 * the command that fetches it.
 */
export async function previousReleaseTree(say = (line: string) => process.stderr.write(`${line}\n`)) {
  const dir = path.join(repoRoot, ".berth", "previous-release", previousRelease);
  const done = path.join(dir, ".installed");
  if (await exists(done)) return dir;
  await requireCommit();
  say(`preparing berth ${previousRelease.slice(0, 12)} (the previous release) in ${dir}`);
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  await extract(dir);
  // Its own lockfile, so it runs with the dependencies it was released with; only runtime ones.
  await run("npm", ["ci", "--omit=dev", "--ignore-scripts", "--prefer-offline", "--no-audit", "--no-fund"], {
    cwd: dir,
    maxBuffer: 16 * 1024 * 1024,
  }).catch((error: unknown) => {
    throw new Error(`npm ci in ${dir} failed:\n${String((error as { stderr?: string }).stderr ?? error)}`);
  });
  await writeFile(done, `${new Date().toISOString()}\n`);
  return dir;
}

async function requireCommit(): Promise<void> {
  try {
    await run("git", ["cat-file", "-e", `${previousRelease}^{commit}`], { cwd: repoRoot });
  } catch {
    const shallow = await run("git", ["rev-parse", "--is-shallow-repository"], { cwd: repoRoot })
      .then(({ stdout }) => stdout.trim() === "true")
      .catch(() => false);
    throw new Error(
      `the upgrade test needs commit ${previousRelease} (berth's previous release), which this clone lacks` +
        (shallow ? " (it is shallow): run git fetch --unshallow" : ": run git fetch origin"),
    );
  }
}

/** `git archive <commit> | tar -x -C dir`. */
async function extract(dir: string): Promise<void> {
  const archive = spawn("git", ["archive", "--format=tar", previousRelease], {
    cwd: repoRoot,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const tar = spawn("tar", ["-x", "-C", dir], { stdio: ["pipe", "ignore", "pipe"] });
  archive.stdout.pipe(tar.stdin);
  let errors = "";
  for (const child of [archive, tar])
    child.stderr?.on("data", (chunk: Buffer) => (errors += chunk.toString()));
  const codes = await Promise.all(
    [archive, tar].map((child) => new Promise<number | null>((resolve) => child.on("close", resolve))),
  );
  if (codes.some((code) => code !== 0)) {
    throw new Error(`git archive ${previousRelease} | tar -x failed: ${errors.trim()}`);
  }
}

async function exists(file: string): Promise<boolean> {
  return access(file).then(
    () => true,
    () => false,
  );
}
