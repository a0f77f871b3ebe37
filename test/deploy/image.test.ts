import { existsSync } from "node:fs";
import { cp, mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repoRoot, run } from "./helpers.ts";

/**
 * No Docker engine here, so this replays the Dockerfile in temp folders: each stage's inputs are
 * copied as its COPY lines (and .dockerignore) say, and its RUN lines run as written; then the
 * operator starts on Node 24 from what the runtime stage holds.
 */
const dockerfile = await readFile(path.join(repoRoot, "Dockerfile"), "utf8");
const packageJson = JSON.parse(await readFile(path.join(repoRoot, "package.json"), "utf8"));

/** The RUN commands of a named stage, continuation lines joined. */
function runCommands(stage: string): string[] {
  const stages = dockerfile.replace(/\\\n\s*/g, " ").split(/^FROM /m);
  const body = stages.find((text) => text.split("\n")[0]?.trim().endsWith(` AS ${stage}`));
  if (body === undefined) throw new Error(`the Dockerfile has no stage named ${stage}`);
  return body
    .split("\n")
    .filter((line) => line.startsWith("RUN "))
    .map((line) => line.slice(4));
}

// Node 24 (this test's runtime) first on PATH, as in the node image; not the repo's node_modules/.bin.
const env = {
  ...process.env,
  PATH: [
    path.dirname(process.execPath),
    ...(process.env.PATH ?? "").split(":").filter((entry) => !entry.includes("node_modules")),
  ].join(":"),
  NODE_ENV: undefined,
  npm_config_update_notifier: "false",
};

async function copyFromRepo(target: string, names: string[]) {
  for (const name of names) {
    await cp(path.join(repoRoot, name), path.join(target, name), {
      recursive: true,
      // .dockerignore keeps tests out of the build context.
      filter: (source) => !source.endsWith(".test.ts"),
    });
  }
}

async function replayStage(stage: string, dir: string) {
  for (const command of runCommands(stage)) await run("sh", ["-c", command], { cwd: dir, env });
}

let dir = "";
let app = "";

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "berth-image-"));
  const build = path.join(dir, "build");
  app = path.join(dir, "app");
  await mkdir(build);
  await mkdir(app);
  await copyFromRepo(build, [
    "package.json",
    "package-lock.json",
    "tsconfig.json",
    "tsconfig.build.json",
    "src",
  ]);
  await replayStage("build", build);
  await copyFromRepo(app, ["package.json", "package-lock.json"]);
  await replayStage("dependencies", app);
  // The runtime stage holds package.json, the dependencies' node_modules and the build's dist.
  await rm(path.join(app, "package-lock.json"));
  await cp(path.join(build, "dist"), path.join(app, "dist"), { recursive: true });
}, 300_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("the operator image", () => {
  it("builds with npm ci and npm run build, and installs production dependencies with npm ci --omit=dev", () => {
    expect(runCommands("build")).toEqual([
      "npm ci --ignore-scripts",
      // The commit `berth --version` reports, from the COMMIT build argument.
      `npm run build && printf '{"commit":"%s"}\\n' "$COMMIT" > dist/build-info.json`,
    ]);
    expect(runCommands("dependencies")[0]).toMatch(/^npm ci --omit=dev --ignore-scripts /);
    for (const line of [
      "COPY package.json ./\n",
      "COPY --from=dependencies /app/node_modules ./node_modules\n",
      "COPY --from=build /app/dist ./dist\n",
      "USER 65532:65532\n",
      'ENTRYPOINT ["node", "dist/main.js", "operator"]\n',
    ]) {
      expect(dockerfile, "the runtime stage this test replays").toContain(line);
    }
  });

  it("runs on the Node version the project's npm scripts use", () => {
    expect(dockerfile).toContain(`ARG NODE_VERSION=${packageJson.devDependencies.node}\n`);
    expect(process.version).toBe(`v${packageJson.devDependencies.node}`);
    expect(packageJson.engines.node).toBe(">=24.0.0 <25");
  });

  it("holds production dependencies only", async () => {
    const lock = JSON.parse(await readFile(path.join(repoRoot, "package-lock.json"), "utf8"));
    const installed = (name: string) => existsSync(path.join(app, "node_modules", name));
    for (const name of Object.keys(packageJson.dependencies)) expect(installed(name), name).toBe(true);
    // Dev-only per the lockfile: @types/node, say, is also a production dependency's dependency.
    const devOnly = Object.keys(packageJson.devDependencies).filter(
      (name) => lock.packages[`node_modules/${name}`]?.dev === true,
    );
    expect(devOnly).toEqual(expect.arrayContaining(["typescript", "vitest", "node"]));
    for (const name of devOnly) expect(installed(name), name).toBe(false);
  });

  it("starts: `berth --help` lists the commands", async () => {
    const { stdout } = await run(process.execPath, ["dist/main.js", "--help"], {
      cwd: app,
      env: { ...env, NODE_ENV: "production" },
    });
    expect(stdout).toContain("Usage: berth <command>");
    expect(stdout).toContain("operator");
  });

  it("starts its entrypoint: `berth operator --help` lists the operator's flags", async () => {
    const { stdout } = await run(process.execPath, ["dist/main.js", "operator", "--help"], {
      cwd: app,
      env: { ...env, NODE_ENV: "production" },
    });
    for (const flag of ["--leader-elect", "--metrics-addr", "--health-addr"]) expect(stdout).toContain(flag);
  });
});
