import { findInstanceType } from "../catalog.ts";
import type { Order, Server, ServerState } from "../store/records.ts";
import type { World } from "../store/world.ts";
import { resumeWaiting } from "./apps.ts";
import { changeSpend } from "./billing.ts";

export interface OrderRequest {
  ownerId: string;
  csp: string;
  region: string;
  zone: string;
  instanceType: string;
  count: number;
  gridIds: string[];
}

/** An order goes pending → provisioning (servers appear) at 20 % of its time → completed. */
export function placeOrder(world: World, request: OrderRequest, now: number): Order {
  const forceFail = world.failures.orders > 0;
  if (forceFail) world.failures.orders--;
  const orderMs = world.timings.order * 1000;
  const order: Order = {
    ownerId: request.ownerId,
    csp: request.csp,
    region: request.region,
    zone: request.zone,
    instanceType: request.instanceType,
    count: request.count,
    gridIds: [...request.gridIds],
    id: world.ids.prefixed("ord"),
    seq: world.nextSeq(),
    state: "pending",
    servers: [],
    error: null,
    forceFail,
    createdAt: now,
    completesAt: now + orderMs,
  };
  order.disguise = world.maybeDisguise("pending_capacity", now, now + orderMs * 0.2);
  world.orders.set(order.id, order);
  world.scheduler.schedule(now + orderMs * 0.2, (at) => beginProvisioning(world, order, at));
  world.scheduler.schedule(order.completesAt, (at) => completeOrder(world, order, at));
  return order;
}

function beginProvisioning(world: World, order: Order, at: number): void {
  if (order.forceFail) {
    order.state = "failed";
    order.error = {
      code: "provider_error",
      message: "the provider failed to provision the servers; order again",
    };
    return;
  }
  if (world.zonesWithoutCapacity.has(order.zone)) {
    order.state = "failed";
    order.error = {
      code: "capacity_unavailable",
      message: `zone ${order.zone} has no capacity for ${order.instanceType}; choose another zone`,
    };
    return;
  }
  order.state = "provisioning";
  const hourlyPrice = findInstanceType(order.instanceType)?.hourlyPrice ?? 0;
  for (let i = 0; i < order.count; i++) {
    const server: Server = {
      address: world.ids.serverAddress(),
      seq: world.nextSeq(),
      ownerId: order.ownerId,
      orderId: order.id,
      gridIds: order.gridIds.filter((id) => world.grids.has(id)),
      state: "provisioning",
      csp: order.csp,
      region: order.region,
      zone: order.zone,
      instanceType: order.instanceType,
      hourlyPrice,
      createdAt: at,
      generation: 0,
    };
    world.servers.set(server.address, server);
    order.servers.push(server.address);
  }
}

function completeOrder(world: World, order: Order, at: number): void {
  if (order.state !== "provisioning") return;
  const owner = world.users.get(order.ownerId);
  changeSpend(world, owner, at, () => {
    for (const address of order.servers) {
      const server = world.servers.get(address);
      if (server?.state === "provisioning") server.state = "running";
    }
  });
  order.state = "completed";
  resumeWaiting(world, at);
}

export type PowerAction = "hibernate" | "wake" | "reboot";

export interface PowerResult {
  address: string;
  state: ServerState;
  error: { code: string; message: string } | null;
}

const powerMoves: Record<PowerAction, { from: ServerState; via: ServerState; to: ServerState }> = {
  hibernate: { from: "running", via: "hibernating", to: "hibernated" },
  wake: { from: "hibernated", via: "waking", to: "running" },
  reboot: { from: "running", via: "rebooting", to: "running" },
};

export function power(world: World, server: Server, action: PowerAction, now: number): PowerResult {
  const move = powerMoves[action];
  if (server.state !== move.from) {
    return failure(server, "invalid_state", `cannot ${action} a server that is ${server.state}`);
  }
  if (action === "wake") {
    const forced = world.failures.wakes > 0;
    if (forced) world.failures.wakes--;
    if (forced || world.zonesWithoutCapacity.has(server.zone)) {
      return failure(
        server,
        "capacity_unavailable",
        `zone ${server.zone} has no capacity to wake the server; retry later`,
      );
    }
  }
  transition(world, server, move.via, now, (at) => {
    setServerState(world, server, move.to, at);
    if (move.to === "running") resumeWaiting(world, at);
  });
  return { address: server.address, state: server.state, error: null };
}

/**
 * The machine breaks: it stops costing, any transition under way ends, and it stays `failed` until
 * it is replaced or deprovisioned. A server already on its way out is left as it is.
 */
export function failServer(world: World, server: Server, now: number): void {
  if (server.state === "retiring" || server.state === "deprovisioning") return;
  server.generation++;
  setServerState(world, server, "failed", now);
}

/** The provider's price for the server changes: it is charged `hourlyPrice` (micros) from `now` on. */
export function repriceServer(world: World, server: Server, hourlyPrice: number, now: number): void {
  changeSpend(world, world.users.get(server.ownerId), now, () => {
    server.hourlyPrice = hourlyPrice;
  });
}

/** Retires or deprovisions a server: it stops costing at once and disappears after `power` seconds. */
export function removeServer(
  world: World,
  server: Server,
  state: "retiring" | "deprovisioning",
  now: number,
): void {
  transition(world, server, state, now, () => {
    world.servers.delete(server.address);
  });
}

function transition(
  world: World,
  server: Server,
  via: ServerState,
  now: number,
  done: (at: number) => void,
): void {
  const generation = ++server.generation;
  setServerState(world, server, via, now);
  world.after(now, world.timings.power, (at) => {
    if (server.generation === generation) done(at);
  });
}

function setServerState(world: World, server: Server, state: ServerState, at: number): void {
  changeSpend(world, world.users.get(server.ownerId), at, () => {
    server.state = state;
  });
}

function failure(server: Server, code: string, message: string): PowerResult {
  return { address: server.address, state: server.state, error: { code, message } };
}
