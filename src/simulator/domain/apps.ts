import type { App, AppState, Build, User } from "../store/records.ts";
import type { World } from "../store/world.ts";
import { accrue, appHourlyCost, canAfford, changeSpend, payerOf } from "./billing.ts";
import { activeBuild, queueBuild } from "./builds.ts";
import { appendLog, KEPT_LINES } from "./logs.ts";
import { placementProblem } from "./placement.ts";

export type StartState = "requested" | "deferred" | "building" | "failed";

const MAX_ERRORS = 10;

/** Sets the app to run and takes the first step (create, restart, or start of a stopped app). */
export function requestStart(world: World, app: App, now: number): StartState {
  app.targetState = "running";
  app.errors = [];
  app.generation++;
  appendLog(app.logs, now, "system", "start requested");
  return advance(world, app, now);
}

/** Removes a stopped app and its builds. */
export function forgetApp(world: World, app: App): void {
  world.apps.delete(app.id);
  for (const [id, build] of world.builds) if (build.appId === app.id) world.builds.delete(id);
}

/** Start is a no-op while the app is already on its way to running. */
export function start(world: World, app: App, now: number): void {
  const onItsWay: AppState[] = ["requested", "building", "provisioning", "running"];
  if (app.targetState === "running" && onItsWay.includes(app.state)) return;
  requestStart(world, app, now);
}

export function stop(world: World, app: App, now: number): void {
  app.targetState = "stopped";
  if (app.state === "stopped" || app.state === "stopping") return;
  const generation = ++app.generation;
  const payer = payerOf(world, app);
  changeSpend(world, payer, now, () => {
    for (const node of app.nodes) node.state = "stopping";
  });
  setState(app, "stopping", now);
  app.waitingFor = null;
  world.after(now, world.timings.stop, (at) => {
    if (app.generation !== generation) return;
    changeSpend(world, payer, at, () => {
      app.nodes = [];
      app.wired = false;
    });
    setState(app, "stopped", at);
  });
}

/** After a config change: redeploy a running app, or re-check one that waits. */
export function redeploy(world: World, app: App, now: number, options: { sourceChanged: boolean }): void {
  if (app.targetState !== "running") return;
  if (options.sourceChanged) {
    startBuild(world, app, now);
    return;
  }
  const placementMayChange =
    world.profile.selfHealing && app.state === "start_blocked" && app.waitingFor === "placement";
  if (app.state === "running" || app.state === "provisioning" || placementMayChange) advance(world, app, now);
}

/** A build requested by the user (POST …/builds); a repository app that should run then redeploys. */
export function startBuild(world: World, app: App, now: number): Build {
  const build = queueBuild(world, app, now, (finished, at) => onBuildFinished(world, app, finished, at));
  if (app.targetState === "running") {
    app.generation++;
    setState(app, "building", now);
    app.waitingFor = null;
  }
  return build;
}

/** Resumes apps waiting for balance or placement whose cause went away (lenient only: the harsh service waits for a start). */
export function resumeWaiting(world: World, now: number): void {
  if (!world.profile.selfHealing) return;
  for (const app of world.apps.values()) {
    if (app.targetState !== "running" || app.waitingFor === null) continue;
    const ready =
      app.waitingFor === "balance"
        ? canAfford(world, payerOf(world, app)?.balance ?? 0, appHourlyCost(app))
        : placementProblem(world, app) === undefined;
    if (ready) advance(world, app, now);
  }
}

/** The balance ran out: the user's running apps wait for credits. */
export function deferRunningApps(world: World, user: User, now: number): void {
  for (const app of world.apps.values()) {
    if (app.nodes.length > 0 && app.targetState === "running" && payerOf(world, app) === user) {
      deferForBalance(world, app, now);
    }
  }
}

/** The next step of an app that should run: wait for balance, build, wait for placement, or provision. */
function advance(world: World, app: App, now: number): StartState {
  const payer = payerOf(world, app);
  if (payer !== undefined) accrue(world, payer, now);
  if (payer === undefined || !canAfford(world, payer.balance, appHourlyCost(app))) {
    deferForBalance(world, app, now);
    return "deferred";
  }
  if (app.source !== undefined && !app.imageReady) {
    if (activeBuild(world, app) === undefined) startBuild(world, app, now);
    else setState(app, "building", now);
    return "building";
  }
  const problem = placementProblem(world, app);
  if (problem !== undefined) {
    halt(world, app, now, "start_blocked", problem, "placement");
    return "failed";
  }
  provision(world, app, now);
  return "requested";
}

function provision(world: World, app: App, now: number): void {
  const generation = ++app.generation;
  const fails = world.failures.starts > 0;
  if (fails) world.failures.starts--;
  const payer = payerOf(world, app);
  const count = Math.max(1, app.config.instances.min);
  changeSpend(world, payer, now, () => {
    app.nodes = Array.from({ length: count }, () => ({
      id: world.ids.prefixed("node"),
      state: "provisioning",
    }));
  });
  app.waitingFor = null;
  setState(app, "provisioning", now);
  app.disguise = world.maybeDisguise(
    "pending_capacity",
    now,
    now + Math.min(1000, world.timings.start * 500),
  );
  world.after(now, world.timings.start, (at) => {
    if (app.generation !== generation) return;
    if (fails) {
      const message = "the container exited repeatedly (exit code 1); check config.command and the logs";
      halt(world, app, at, "start_blocked", { code: "container_exited", message }, null);
      return;
    }
    changeSpend(world, payer, at, () => {
      for (const node of app.nodes) node.state = "running";
    });
    app.lastHeartbeatAt = at;
    setState(app, "running", at);
    if (!app.wired) {
      world.after(at, world.timings.wire, (wiredAt) => {
        if (app.generation !== generation) return;
        app.wired = true;
        appendLog(app.logs, wiredAt, "system", "endpoints wired");
      });
    }
  });
}

function onBuildFinished(world: World, app: App, build: Build, at: number): void {
  if (!world.apps.has(app.id) || app.buildId !== build.id) return;
  if (build.state === "succeeded") {
    app.imageReady = true;
    if (app.targetState === "running" && app.state === "building") advance(world, app, at);
    return;
  }
  if (app.targetState === "running" && app.state === "building") {
    setState(app, "build_failed", at);
    addError(
      app,
      at,
      "build_failed",
      `build ${build.id} failed at step ${build.failStep}; read the build logs`,
    );
  }
}

function deferForBalance(world: World, app: App, now: number): void {
  halt(
    world,
    app,
    now,
    "deferred",
    {
      code: "insufficient_balance",
      message: "the balance does not cover an hour of this app; add credits, then start the app again",
    },
    "balance",
  );
}

/** Stops the nodes and parks the app in a waiting or failed state with the reason as an error. */
function halt(
  world: World,
  app: App,
  now: number,
  state: AppState,
  error: { code: string; message: string },
  waitingFor: App["waitingFor"],
): void {
  app.generation++;
  changeSpend(world, payerOf(world, app), now, () => {
    app.nodes = [];
    app.wired = false;
  });
  app.waitingFor = waitingFor;
  setState(app, state, now);
  addError(app, now, error.code, error.message);
}

/** Request lines for the time the app has been running since the logs were last read. */
export function catchUpLogs(app: App, now: number): void {
  if (app.state !== "running" || app.config.ports.length === 0) return;
  const every = 10_000;
  const from = Math.max(app.lastHeartbeatAt, now - KEPT_LINES * every);
  for (let at = from + every; at <= now; at += every) {
    appendLog(app.logs, at, "app", `GET / 200 ${3 + (at % 17)}ms`);
  }
  app.lastHeartbeatAt = now - ((now - from) % every);
}

function setState(app: App, state: AppState, at: number): void {
  if (app.state === state) return;
  app.state = state;
  appendLog(app.logs, at, "system", `state ${state}`);
}

function addError(app: App, at: number, code: string, message: string): void {
  app.errors.push({ code, message, at });
  if (app.errors.length > MAX_ERRORS) app.errors.splice(0, app.errors.length - MAX_ERRORS);
  appendLog(app.logs, at, "system", `error ${code}: ${message}`);
}
