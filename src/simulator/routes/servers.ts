import { z } from "zod";
import { findGrid, findServer } from "../access.ts";
import type { Principal } from "../auth.ts";
import { findInstanceType, findRegion, findZone, NATIVE_CSP } from "../catalog.ts";
import { accrue, canAfford } from "../domain/billing.ts";
import { placeOrder, power, removeServer } from "../domain/servers.ts";
import { ApiError, type ErrorDetail, insufficientBalance, notFound, validationFailed } from "../errors.ts";
import { asReturned } from "../http/inputs.ts";
import { pageQuery, queryArray } from "../http/query.ts";
import { defineRoute } from "../http/route.ts";
import { pageCutting, paginate } from "../pagination.ts";
import { requireScopes } from "../scopes.ts";
import { formatMoney } from "../store/money.ts";
import type { Server } from "../store/records.ts";
import type { World } from "../store/world.ts";
import { orderView, serverView } from "../views.ts";
import { guid } from "./app-schemas.ts";

const address = z
  .string()
  .regex(/^0x[0-9a-f]{40}$/, `must be 0x followed by 40 hexadecimal characters${asReturned}`);
const addresses = z
  .array(address)
  .min(1)
  .max(50)
  .refine((list) => new Set(list).size === list.length, "each address may appear once");

const provisionBody = z
  .object({
    dryRun: z.boolean(),
    csp: z.string().min(1).max(50).default(NATIVE_CSP),
    region: z.string().min(1).max(50),
    zone: z.string().min(1).max(50),
    instanceType: z.string().min(1).max(100),
    count: z.number().int().min(1).max(20),
    gridIds: z.array(guid).max(20).default([]),
  })
  .strict();

type ProvisionInput = z.infer<typeof provisionBody>;

/** A broken machine is replaced too; one in transition is not. */
const replaceable = new Set(["running", "hibernated", "failed"]);

export const serverRoutes = [
  defineRoute({
    operation: "listServers",
    method: "GET",
    path: "/servers",
    scopes: ["pools:read"],
    query: z
      .object({
        orderId: z.string().min(1).max(100).optional(),
        gridId: queryArray(guid).optional(),
        ...pageQuery,
      })
      .strict(),
    handle: ({ world, principal, query }) => {
      const owned = [...world.servers.values()].filter(
        (s) =>
          s.ownerId === principal.user.id &&
          (query.orderId === undefined || s.orderId === query.orderId) &&
          (query.gridId === undefined || query.gridId.some((id) => s.gridIds.includes(id))),
      );
      const page = paginate(owned, {
        ...query,
        filters: { orderId: query.orderId, gridId: query.gridId },
        cutting: pageCutting(world),
      });
      return { status: 200, body: { items: page.items.map(serverView), nextCursor: page.nextCursor } };
    },
  }),
  defineRoute({
    operation: "listOrders",
    method: "GET",
    path: "/servers/orders",
    scopes: ["pools:read"],
    query: z.object(pageQuery).strict(),
    handle: ({ world, principal, query, now }) => {
      const owned = [...world.orders.values()].filter((o) => o.ownerId === principal.user.id);
      const page = paginate(owned, { ...query, filters: {}, cutting: pageCutting(world) });
      return {
        status: 200,
        body: { items: page.items.map((o) => orderView(world, o, now)), nextCursor: page.nextCursor },
      };
    },
  }),
  defineRoute({
    operation: "getOrder",
    method: "GET",
    path: "/servers/orders/{orderId}",
    scopes: ["pools:read"],
    handle: ({ world, principal, param, now }) => {
      const order = world.orders.get(param("orderId"));
      if (order === undefined || order.ownerId !== principal.user.id)
        throw notFound("order", param("orderId"));
      world.stats.poll("getOrder", order.id, now);
      return { status: 200, body: orderView(world, order, now) };
    },
  }),
  defineRoute({
    operation: "getServer",
    method: "GET",
    path: "/servers/{address}",
    scopes: ["pools:read"],
    handle: ({ world, principal, param }) => ({
      status: 200,
      body: serverView(findServer(world, principal, param("address"))),
    }),
  }),
  defineRoute({
    operation: "provisionServers",
    method: "POST",
    path: "/servers/provision",
    scopes: ["pools:write", "compute:spend"],
    body: provisionBody,
    idempotent: true,
    takesTime: (body) => !body.dryRun,
    handle: ({ world, principal, body, now }) => {
      const price = checkCatalog(body);
      for (const gridId of body.gridIds)
        findGrid(world, principal, gridId, "owner", "joining servers to a grid");
      if (body.dryRun) {
        return {
          status: 200,
          body: {
            estimate: {
              hourlyCost: formatMoney(price * body.count),
              perServerHourlyCost: formatMoney(price),
              currency: "USD",
              count: body.count,
              csp: body.csp,
              region: body.region,
              zone: body.zone,
              instanceType: body.instanceType,
            },
          },
        };
      }
      requireBalance(world, principal, price * body.count, now);
      const { dryRun: _, ...request } = body;
      const order = placeOrder(world, { ...request, ownerId: principal.user.id }, now);
      return { status: 202, body: orderView(world, order, now) };
    },
  }),
  defineRoute({
    operation: "replaceServer",
    method: "POST",
    path: "/servers/{address}/replace",
    scopes: ["pools:write", "compute:spend"],
    body: z
      .object({ instanceType: z.string().min(1).max(100).optional() })
      .strict()
      .optional(),
    idempotent: true,
    takesTime: () => true,
    handle: ({ world, principal, param, body, now }) => {
      const server = findServer(world, principal, param("address"));
      if (!replaceable.has(server.state)) {
        throw new ApiError(
          409,
          "invalid_state",
          `server ${server.address} is ${server.state}; it can't be replaced now`,
          {
            state: server.state,
          },
        );
      }
      const instanceType = body?.instanceType ?? server.instanceType;
      const price = checkCatalog({ ...placementOf(server), instanceType });
      requireBalance(world, principal, price, now);
      removeServer(world, server, "retiring", now);
      const order = placeOrder(
        world,
        {
          ...placementOf(server),
          instanceType,
          count: 1,
          gridIds: [...server.gridIds],
          ownerId: principal.user.id,
        },
        now,
      );
      return { status: 202, body: { replacedAddress: server.address, order: orderView(world, order, now) } };
    },
  }),
  defineRoute({
    operation: "powerServers",
    method: "POST",
    path: "/servers/power",
    scopes: ["pools:write"],
    body: z.object({ addresses, action: z.enum(["hibernate", "wake", "reboot"]) }).strict(),
    handle: ({ world, principal, body, now }) => {
      if (body.action === "wake") requireScopes(principal.key.scopes, ["pools:write", "compute:spend"]);
      const servers = owned(world, principal, body.addresses);
      const items = servers.map((s) => power(world, s, body.action, now));
      return world.profile.acceptedBodies ? { status: 202, body: { items } } : { status: 202 };
    },
  }),
  defineRoute({
    operation: "deprovisionServers",
    method: "POST",
    path: "/servers/deprovision",
    scopes: ["pools:write"],
    body: z.object({ addresses, confirm: z.boolean().optional() }).strict(),
    handle: ({ world, principal, body, now }) => {
      if (body.confirm !== true) {
        throw new ApiError(
          400,
          "confirmation_required",
          "deprovisioning destroys the servers and their disks; send confirm: true once this was confirmed",
        );
      }
      const servers = owned(world, principal, body.addresses);
      for (const server of servers) {
        if (server.state !== "deprovisioning" && server.state !== "retiring") {
          removeServer(world, server, "deprovisioning", now);
        }
      }
      if (!world.profile.acceptedBodies) return { status: 202 };
      return { status: 202, body: { items: servers.map((s) => ({ address: s.address, state: s.state })) } };
    },
  }),
];

/** Region, zone, csp and instance type must exist and fit together; returns the hourly price. */
function checkCatalog(body: Pick<ProvisionInput, "csp" | "region" | "zone" | "instanceType">): number {
  const details: ErrorDetail[] = [];
  const region = findRegion(body.region);
  if (region === undefined) details.push({ path: "region", message: `unknown region "${body.region}"` });
  else if (!region.csps.includes(body.csp)) {
    details.push({ path: "csp", message: `csp "${body.csp}" is not offered in region ${body.region}` });
  }
  const zone = findZone(body.zone);
  if (zone === undefined || (region !== undefined && zone.regionId !== region.id)) {
    details.push({ path: "zone", message: `zone "${body.zone}" is not a zone of region ${body.region}` });
  }
  const type = findInstanceType(body.instanceType);
  if (type === undefined || type.csp !== body.csp) {
    details.push({
      path: "instanceType",
      message: `instance type "${body.instanceType}" is not offered by csp ${body.csp}`,
    });
  }
  if (details.length > 0 || type === undefined) throw validationFailed(details);
  return type.hourlyPrice;
}

/** A real order needs the balance to cover one hour of the servers it adds. */
function requireBalance(world: World, principal: Principal, hourlyCost: number, now: number): void {
  accrue(world, principal.user, now);
  if (!canAfford(world, principal.user.balance, hourlyCost)) {
    throw insufficientBalance(principal.user.balance, hourlyCost, "the servers ordered");
  }
}

function placementOf(server: Server) {
  return { csp: server.csp, region: server.region, zone: server.zone };
}

function owned(world: World, principal: Principal, list: readonly string[]): Server[] {
  return list.map((a) => findServer(world, principal, a));
}
