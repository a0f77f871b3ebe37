import { execFileSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repoRoot, run } from "../deploy/helpers.ts";

/**
 * The package as a user installs it: `npm pack` (which builds dist/), `npm install -g` into a
 * temporary prefix, then the `berth` bin on Node 24 and on an older Node.
 */
const node24 = path.dirname(process.execPath);
const systemPath = (process.env.PATH ?? "").split(":").filter((entry) => !entry.includes("node_modules"));

/** Node 22, the pinned devDependency `node-22` (npm ci installs it), not whatever the machine has. */
function olderNode(): { bin: string; version: string } {
  const bin = path.join(repoRoot, "node_modules", "node-22", "bin", "node");
  const version = execFileSync(bin, ["--version"], { encoding: "utf8" }).trim().slice(1);
  return { bin, version };
}

let dir = "";
let berth = "";
let binDir = "";

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "berth-install-"));
  const env = {
    ...process.env,
    PATH: [node24, ...systemPath].join(":"),
    npm_config_update_notifier: "false",
  };
  const { stdout } = await run("npm", ["pack", "--json", "--pack-destination", dir], { cwd: repoRoot, env });
  const [packed] = JSON.parse(stdout.slice(stdout.indexOf("["))) as { filename: string }[];
  if (packed === undefined) throw new Error(`npm pack made no tarball: ${stdout}`);
  const prefix = path.join(dir, "global");
  await run(
    "npm",
    [
      "install",
      "-g",
      "--prefix",
      prefix,
      "--prefer-offline",
      "--no-audit",
      "--no-fund",
      path.join(dir, packed.filename),
    ],
    { env },
  );
  binDir = path.join(prefix, "bin");
  berth = path.join(binDir, "berth");
}, 300_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("berth installed with npm install -g", () => {
  it("prints its help on Node 24", async () => {
    const { stdout } = await run(berth, ["--help"], {
      env: { ...process.env, PATH: [node24, ...systemPath].join(":") },
    });
    expect(stdout).toContain("Usage: berth <command>");
    expect(stdout).toContain("operator");
  });

  it("installs the kubectl plugin: kubectl berth trace runs berth's trace", async () => {
    const { stdout } = await run("kubectl", ["berth", "trace", "--help"], {
      env: { ...process.env, PATH: [binDir, node24, ...systemPath].join(":") },
    });
    expect(stdout).toContain("Usage: berth trace <kind>/<name> [flags]");
  });

  it("runs on the pinned Node 24, not on the older Node beside it", () => {
    expect(process.versions.node.split(".")[0]).toBe("24");
  });

  it("on an older Node, says which Node it needs and exits 2 before loading anything", () => {
    const older = olderNode();
    expect(Number.parseInt(older.version, 10)).toBeLessThan(24);
    let failure: { status?: number; stderr?: string; stdout?: string } = {};
    try {
      execFileSync(berth, ["--help"], {
        encoding: "utf8",
        env: { ...process.env, PATH: [path.dirname(older.bin), ...systemPath].join(":") },
        stdio: ["ignore", "pipe", "pipe"],
      });
    } catch (error) {
      failure = error as typeof failure;
    }
    expect(failure.status).toBe(2);
    expect(failure.stderr).toBe(
      `berth needs Node.js 24 (this is ${older.version}); run it with npx berth, or install Node 24\n`,
    );
    expect(failure.stdout).toBe("");
  });
});
