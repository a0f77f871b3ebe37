import { z } from "zod";
import { findGrid } from "../access.ts";
import { conflict } from "../errors.ts";
import { pageQuery, queryString } from "../http/query.ts";
import { defineRoute } from "../http/route.ts";
import { pageCutting, paginate } from "../pagination.ts";
import type { Grid } from "../store/records.ts";
import type { World } from "../store/world.ts";
import { gridView } from "../views.ts";
import { resourceName } from "./app-schemas.ts";

export const gridRoutes = [
  defineRoute({
    operation: "listGrids",
    method: "GET",
    path: "/grids",
    scopes: ["pools:read"],
    query: z.object({ name: queryString.optional(), ...pageQuery }).strict(),
    handle: ({ world, principal, query }) => {
      const visible = [...world.grids.values()].filter(
        (g) => g.members.has(principal.user.id) && (query.name === undefined || g.name === query.name),
      );
      const page = paginate(visible, {
        ...query,
        filters: { name: query.name },
        cutting: pageCutting(world),
      });
      return { status: 200, body: { items: page.items.map(gridView), nextCursor: page.nextCursor } };
    },
  }),
  defineRoute({
    operation: "createGrid",
    method: "POST",
    path: "/grids",
    scopes: ["pools:write"],
    body: z.object({ name: resourceName, description: z.string().max(500).optional() }).strict(),
    idempotent: true,
    takesTime: () => true,
    handle: ({ world, principal, body, now }) => {
      const grid: Grid = {
        id: world.ids.guid(),
        seq: world.nextSeq(),
        name: body.name,
        description: body.description ?? null,
        ownerId: principal.user.id,
        members: new Map([[principal.user.id, "owner"]]),
        createdAt: now,
      };
      world.grids.set(grid.id, grid);
      return { status: 201, body: gridView(grid) };
    },
  }),
  defineRoute({
    operation: "getGrid",
    method: "GET",
    path: "/grids/{gridId}",
    scopes: ["pools:read"],
    handle: ({ world, principal, param }) => ({
      status: 200,
      body: gridView(findGrid(world, principal, param("gridId"), "viewer", "reading a grid")),
    }),
  }),
  defineRoute({
    operation: "deleteGrid",
    method: "DELETE",
    path: "/grids/{gridId}",
    scopes: ["pools:admin"],
    handle: ({ world, principal, param }) => {
      const grid = findGrid(world, principal, param("gridId"), "owner", "deleting a grid");
      if (!world.profile.gridDeleteDetaches) assertGridUnused(world, grid.id);
      for (const server of world.servers.values())
        server.gridIds = server.gridIds.filter((id) => id !== grid.id);
      world.grids.delete(grid.id);
      return { status: 204 };
    },
  }),
];

/** A grid that servers or apps still use can't be deleted: deprovision the servers and retarget the apps first. */
function assertGridUnused(world: World, gridId: string): void {
  const servers = [...world.servers.values()].filter((s) => s.gridIds.includes(gridId)).map((s) => s.address);
  const apps = [...world.apps.values()].filter((a) => gridId in a.config.gridPriorities).map((a) => a.id);
  if (servers.length === 0 && apps.length === 0) return;
  throw conflict(
    "grid_in_use",
    `grid ${gridId} is used by ${servers.length} server(s) and ${apps.length} app(s); deprovision the servers and remove the grid from the apps' gridPriorities first`,
    { servers, apps },
  );
}
