import type { StartState } from "./domain/apps.ts";
import { appChargedHourly, serverHourlyRate } from "./domain/billing.ts";
import type { Shared } from "./domain/sharing.ts";
import { formatMoney } from "./store/money.ts";
import type { App, Build, Disguise, Grid, Order, Project, Role, Server } from "./store/records.ts";
import type { World } from "./store/world.ts";

/** JSON shapes of the records, as docs/simulator.md documents them. */

const iso = (ms: number): string => new Date(ms).toISOString();
const isoOrNull = (ms: number | null): string | null => (ms === null ? null : iso(ms));

export function projectView(project: Project) {
  return { id: project.id, name: project.name, createdAt: iso(project.createdAt) };
}

export function appView(app: App, start?: StartState) {
  const { config } = app;
  return {
    id: app.id,
    projectId: app.projectId,
    name: app.name,
    config: {
      ...(config.image === undefined ? {} : { image: config.image }),
      ports: config.ports.map((p) => ({ ...p })),
      instances: { ...config.instances },
      env: config.env.map((e) => ({ name: e.name, value: e.secret ? null : e.value, secret: e.secret })),
      volumes: config.volumes.map((v) => ({ ...v })),
      hardware: { ...config.hardware },
      placement: { ...config.placement },
      gridPriorities: { ...config.gridPriorities },
      ...(config.command === undefined ? {} : { command: [...config.command] }),
    },
    ...(app.source === undefined ? {} : { source: { ...app.source } }),
    ...(app.buildId === undefined ? {} : { buildId: app.buildId }),
    ...(start === undefined ? {} : { start: { state: start } }),
    createdAt: iso(app.createdAt),
    updatedAt: iso(app.updatedAt),
  };
}

/** The state a client sees: now and then (harsh profile) one the docs don't list, for a moment. */
function shownState(record: { state: string; disguise?: Disguise }, now: number): string {
  return record.disguise !== undefined && now < record.disguise.until ? record.disguise.state : record.state;
}

export function statusView(app: App, now: number) {
  return {
    state: shownState(app, now),
    targetState: app.targetState,
    nodes: app.nodes.map((n) => ({ id: n.id, state: n.state })),
    errors: app.errors.map((e) => ({ code: e.code, message: e.message, at: iso(e.at) })),
    endpoints: app.config.ports.map((p) => ({
      port: p.port,
      protocol: p.protocol,
      address: app.wired ? endpointAddress(app, p.port, p.protocol) : null,
    })),
    currentHourlyCost: formatMoney(appChargedHourly(app)),
    currency: "USD",
  };
}

function endpointAddress(app: App, port: number, protocol: string): string {
  const short = app.id.slice(0, 8);
  if (protocol === "http80_load_balancer" || protocol === "http") {
    const slug =
      app.name
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, "-")
        .replace(/^-|-$/g, "")
        .slice(0, 40) || "app";
    return `https://${slug}-${short}.apps.sim.berth.dev`;
  }
  return `${protocol}://${short}.${protocol}.sim.berth.dev:${port}`;
}

export function buildView(world: World, build: Build, now: number) {
  const finished = build.finishedAt !== null;
  return {
    id: build.id,
    appId: build.appId,
    projectId: build.projectId,
    state: shownState(build, now),
    failedStep: build.state === "failed" ? build.failStep : null,
    createdAt: iso(build.createdAt),
    finishedAt: isoOrNull(build.finishedAt),
    ...pollAfterField(world, build.id, finished ? undefined : build.finishesAt - now, now),
  };
}

export function gridView(grid: Grid) {
  return { id: grid.id, name: grid.name, description: grid.description, createdAt: iso(grid.createdAt) };
}

export function serverView(server: Server) {
  return {
    address: server.address,
    orderId: server.orderId,
    gridIds: [...server.gridIds],
    state: server.state,
    csp: server.csp,
    region: server.region,
    zone: server.zone,
    instanceType: server.instanceType,
    hourlyCost: formatMoney(server.hourlyPrice),
    currentHourlyCost: formatMoney(serverHourlyRate(server)),
    currency: "USD",
    createdAt: iso(server.createdAt),
  };
}

export function orderView(world: World, order: Order, now: number) {
  const final = order.state === "completed" || order.state === "failed";
  return {
    id: order.id,
    state: shownState(order, now),
    csp: order.csp,
    region: order.region,
    zone: order.zone,
    instanceType: order.instanceType,
    count: order.count,
    gridIds: [...order.gridIds],
    servers: [...order.servers],
    error: order.error === null ? null : { ...order.error },
    ...pollAfterField(world, order.id, final ? undefined : order.completesAt - now, now),
    createdAt: iso(order.createdAt),
  };
}

/**
 * `pollAfterSec`: wall-clock seconds (1 to 10) until running work should be looked at again, null
 * once it has finished, and now and then (harsh profile) absent. What the client is told is
 * remembered, so a read before that time counts as an early poll.
 */
function pollAfterField(
  world: World,
  id: string,
  remainingMs: number | undefined,
  now: number,
): { pollAfterSec?: number | null } {
  if (remainingMs === undefined) {
    world.stats.hint(id, undefined);
    return { pollAfterSec: null };
  }
  if (!world.profile.pollAfterAlways && world.chance(POLL_AFTER_ABSENT_CHANCE)) {
    world.stats.hint(id, undefined);
    return {};
  }
  const pollAfterSec = Math.min(10, world.clock.toWallSeconds(Math.max(0, remainingMs)));
  world.stats.hint(id, now + world.clock.toSimMs(pollAfterSec * 1000));
  return { pollAfterSec };
}

const POLL_AFTER_ABSENT_CHANCE = 0.3;

/** One share: who has which role on a resource; `accountOwner` marks the owner no share can change. */
export function shareView(world: World, shared: Shared, userId: string, role: Role) {
  return {
    resourceType: shared.type,
    resourceId: shared.id,
    userId,
    email: world.users.get(userId)?.email ?? null,
    role,
    accountOwner: userId === shared.accountOwnerId,
  };
}
