import { z } from "zod";
import { findApp } from "../access.ts";
import { catchUpLogs, requestStart, start, startBuild, stop } from "../domain/apps.ts";
import { accrue, appHourlyCost, canAfford, payerOf } from "../domain/billing.ts";
import { DEFAULT_LOG_BYTES, exportLogs, MAX_LOG_BYTES } from "../domain/logs.ts";
import { conflict, insufficientBalance } from "../errors.ts";
import { queryInt } from "../http/query.ts";
import { defineRoute, type RouteContext } from "../http/route.ts";
import { requireScopes } from "../scopes.ts";
import { formatMoney } from "../store/money.ts";
import type { App } from "../store/records.ts";
import type { World } from "../store/world.ts";
import { buildView, statusView } from "../views.ts";

const APP_PATH = "/projects/{projectId}/apps/{appId}";

export const logsQuery = z
  .object({ maxBytes: queryInt(1, MAX_LOG_BYTES).optional().default(DEFAULT_LOG_BYTES) })
  .strict();

type Context = RouteContext<unknown, unknown>;

function app(context: Context, role: "viewer" | "editor", action: string): App {
  return findApp(
    context.world,
    context.principal,
    context.param("projectId"),
    context.param("appId"),
    role,
    action,
  );
}

/** 202; the body (the status after the call) only when the profile promises one. */
function accepted(world: World, target: App) {
  if (!world.profile.acceptedBodies) return { status: 202 };
  return { status: 202, body: { state: target.state, targetState: target.targetState } };
}

/** Starting compute needs credits: 402 unless the balance covers an hour of the app. */
function requireBalance(world: World, target: App, now: number): void {
  const payer = payerOf(world, target);
  if (payer === undefined) return;
  accrue(world, payer, now);
  const hourlyCost = appHourlyCost(target);
  if (!canAfford(world, payer.balance, hourlyCost))
    throw insufficientBalance(payer.balance, hourlyCost, "starting the app");
}

export const appActionRoutes = [
  defineRoute({
    operation: "getAppStatus",
    method: "GET",
    path: `${APP_PATH}/status`,
    scopes: ["apps:read"],
    handle: (c) => ({ status: 200, body: statusView(app(c, "viewer", "reading app status"), c.now) }),
  }),
  defineRoute({
    operation: "startApp",
    method: "POST",
    path: `${APP_PATH}/start`,
    scopes: ["apps:write", "compute:spend"],
    handle: (c) => {
      const target = app(c, "editor", "starting an app");
      requireBalance(c.world, target, c.now);
      start(c.world, target, c.now);
      return accepted(c.world, target);
    },
  }),
  defineRoute({
    operation: "stopApp",
    method: "POST",
    path: `${APP_PATH}/stop`,
    scopes: ["apps:write"],
    handle: (c) => {
      const target = app(c, "editor", "stopping an app");
      stop(c.world, target, c.now);
      return accepted(c.world, target);
    },
  }),
  defineRoute({
    operation: "restartApp",
    method: "POST",
    path: `${APP_PATH}/restart`,
    scopes: ["apps:write", "compute:spend"],
    handle: (c) => {
      const target = app(c, "editor", "restarting an app");
      requireBalance(c.world, target, c.now);
      requestStart(c.world, target, c.now);
      return accepted(c.world, target);
    },
  }),
  defineRoute({
    operation: "triggerBuild",
    method: "POST",
    path: `${APP_PATH}/builds`,
    scopes: ["apps:write"],
    handle: (c) => {
      if (!c.world.profile.spendOnlyForSizing) {
        requireScopes(c.principal.key.scopes, ["apps:write", "compute:spend"]);
      }
      const target = app(c, "editor", "triggering a build");
      if (target.source === undefined) {
        throw conflict(
          "no_build_source",
          `app ${target.id} runs an image and has no repository source to build`,
        );
      }
      const build = startBuild(c.world, target, c.now);
      // Always answered with the build, even without acceptedBodies: the spec gives a build's id only
      // by the creating call or a listing, and builds have no listing.
      return { status: 202, body: buildView(c.world, build, c.now) };
    },
  }),
  defineRoute({
    operation: "getAppLogs",
    method: "GET",
    path: `${APP_PATH}/logs`,
    scopes: ["monitoring:read"],
    query: logsQuery,
    handle: (c) => {
      const target = app(c, "viewer", "reading app logs");
      catchUpLogs(target, c.now);
      return { status: 200, body: exportLogs(target.logs, c.query.maxBytes) };
    },
  }),
  defineRoute({
    operation: "getAppUsage",
    method: "GET",
    path: `${APP_PATH}/usage`,
    scopes: ["monitoring:read"],
    handle: (c) => ({ status: 200, body: usageView(c.world, app(c, "viewer", "reading app usage"), c.now) }),
  }),
];

function usageView(world: World, target: App, now: number) {
  const payer = payerOf(world, target);
  if (payer !== undefined) accrue(world, payer, now);
  const runningSeconds = Math.floor(target.nodeMs / 1000);
  const { cpu = 0.5, memoryMb = 512 } = target.config.hardware;
  const running = target.nodes.filter((n) => n.state === "running").length;
  return {
    appId: target.id,
    window: { from: new Date(target.createdAt).toISOString(), to: new Date(now).toISOString() },
    instances: running,
    runningSeconds,
    // A steady synthetic load: a quarter of the CPU, 60 % of the memory, one request every 10 s.
    cpuSeconds: Math.round(runningSeconds * cpu * 0.25 * 10) / 10,
    memoryMbAvg: running > 0 ? Math.round(memoryMb * 0.6) : 0,
    requests: target.config.ports.length > 0 ? Math.floor(runningSeconds / 10) : 0,
    cost: formatMoney(target.spent),
  };
}
