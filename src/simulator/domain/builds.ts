import type { App, Build } from "../store/records.ts";
import type { World } from "../store/world.ts";
import { appendLog } from "./logs.ts";

export const BUILD_STEPS = ["clone", "install", "build", "push"] as const;

export function activeBuild(world: World, app: App): Build | undefined {
  const build = app.buildId === undefined ? undefined : world.builds.get(app.buildId);
  return build !== undefined && (build.state === "queued" || build.state === "running") ? build : undefined;
}

/** Queues a build of the app's source; `onFinish` runs when it ends, at its own instant. */
export function queueBuild(
  world: World,
  app: App,
  now: number,
  onFinish: (build: Build, at: number) => void,
): Build {
  const buildMs = world.timings.build * 1000;
  const build: Build = {
    id: world.ids.prefixed("bld"),
    appId: app.id,
    projectId: app.projectId,
    state: "queued",
    failStep: world.failures.builds.shift() ?? null,
    createdAt: now,
    finishesAt: now + buildMs,
    finishedAt: null,
    logs: [],
  };
  build.disguise = world.maybeDisguise("preparing", now, now + buildMs * 0.15);
  world.builds.set(build.id, build);
  app.buildId = build.id;
  appendLog(build.logs, now, "build", `build ${build.id} queued`);
  world.scheduler.schedule(now + buildMs * 0.15, (at) => {
    build.state = "running";
    const source = app.source;
    appendLog(build.logs, at, "clone", `cloning ${source?.provider}:${source?.repository}@${source?.branch}`);
  });
  world.scheduler.schedule(build.finishesAt, (at) => {
    finish(build, app, at);
    onFinish(build, at);
  });
  return build;
}

function finish(build: Build, app: App, at: number): void {
  for (const step of BUILD_STEPS) {
    if (step === build.failStep) {
      for (const line of failedStepOutput(step, app)) appendLog(build.logs, at, step, line);
      appendLog(build.logs, at, step, `ERROR: step ${step} failed with exit code 1`);
      break;
    }
    if (step !== "clone") appendLog(build.logs, at, step, stepMessage(step, app));
  }
  build.state = build.failStep === null ? "succeeded" : "failed";
  build.finishedAt = at;
  appendLog(build.logs, at, "build", `build ${build.id} ${build.state}`);
}

function stepMessage(step: string, app: App): string {
  if (step === "install") return "installing dependencies";
  if (step === "build") return "building image";
  return `pushing registry.sim.berth.dev/${app.id}:${app.buildId ?? "latest"}`;
}

/** What a failing step prints: its environment (secret values masked, as the service does), then the error. */
function failedStepOutput(step: string, app: App): string[] {
  const env = app.config.env.map((e) => `env ${e.name}=${e.secret ? "****" : e.value}`);
  return [
    `running ${step} with ${env.length} environment variable(s)`,
    ...env,
    `${step}: command exited with code 1`,
    `${step}: see the lines above for the cause`,
  ];
}
