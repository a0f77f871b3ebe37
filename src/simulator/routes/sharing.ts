import { z } from "zod";
import type { Principal } from "../auth.ts";
import {
  addShare,
  changeShare,
  findUser,
  removeShare,
  type Shared,
  sharedApp,
  sharedGrid,
  sharedProject,
} from "../domain/sharing.ts";
import { pageQuery } from "../http/query.ts";
import { defineRoute, type Route } from "../http/route.ts";
import { pageCutting, paginate } from "../pagination.ts";
import type { World } from "../store/world.ts";
import { shareView } from "../views.ts";

const role = z.enum(["viewer", "editor", "owner"]);

const addBody = z
  .object({
    userId: z.string().min(1).max(256).optional(),
    email: z.email().max(320).optional(),
    role,
  })
  .strict()
  .refine((body) => (body.userId === undefined) !== (body.email === undefined), {
    message: "give exactly one of userId and email",
  });

const changeBody = z.object({ role }).strict();

interface ShareFamily {
  /** Operation names: list<Noun>Shares, add<Noun>Share, … */
  noun: "Project" | "App" | "Grid";
  base: string;
  scope: string;
  find(world: World, principal: Principal, param: (name: string) => string): Shared;
}

/** List, add, change and remove shares of one resource type; every call needs the family's admin scope. */
function shareRoutes({ noun, base, scope, find }: ShareFamily): Route[] {
  const scopes = [scope];
  return [
    defineRoute({
      operation: `list${noun}Shares`,
      method: "GET",
      path: `${base}/shares`,
      scopes,
      query: z.object(pageQuery).strict(),
      handle: ({ world, principal, param, query }) => {
        const shared = find(world, principal, param);
        const entries = [...shared.members].map(([userId, role]) => ({
          seq: world.users.get(userId)?.index ?? Number.MAX_SAFE_INTEGER,
          userId,
          role,
        }));
        const page = paginate(entries, { ...query, filters: {}, cutting: pageCutting(world) });
        return {
          status: 200,
          body: {
            items: page.items.map((e) => shareView(world, shared, e.userId, e.role)),
            nextCursor: page.nextCursor,
          },
        };
      },
    }),
    defineRoute({
      operation: `add${noun}Share`,
      method: "POST",
      path: `${base}/shares`,
      scopes,
      body: addBody,
      handle: ({ world, principal, param, body }) => {
        const shared = find(world, principal, param);
        const user = findUser(world, body);
        addShare(shared, user, body.role);
        return { status: 201, body: shareView(world, shared, user.id, body.role) };
      },
    }),
    defineRoute({
      operation: `change${noun}Share`,
      method: "PATCH",
      path: `${base}/shares/{userId}`,
      scopes,
      body: changeBody,
      handle: ({ world, principal, param, body }) => {
        const shared = find(world, principal, param);
        changeShare(shared, param("userId"), body.role);
        return { status: 200, body: shareView(world, shared, param("userId"), body.role) };
      },
    }),
    defineRoute({
      operation: `remove${noun}Share`,
      method: "DELETE",
      path: `${base}/shares/{userId}`,
      scopes,
      handle: ({ world, principal, param }) => {
        removeShare(find(world, principal, param), param("userId"));
        return { status: 204 };
      },
    }),
  ];
}

/** Sharing (hosting-api.md "Sharing permissions"): projects:admin, apps:admin, pools:admin per type. */
export const sharingRoutes: readonly Route[] = [
  ...shareRoutes({
    noun: "Project",
    base: "/projects/{projectId}",
    scope: "projects:admin",
    find: (world, principal, param) => sharedProject(world, principal, param("projectId")),
  }),
  ...shareRoutes({
    noun: "App",
    base: "/projects/{projectId}/apps/{appId}",
    scope: "apps:admin",
    find: (world, principal, param) => sharedApp(world, principal, param("projectId"), param("appId")),
  }),
  ...shareRoutes({
    noun: "Grid",
    base: "/grids/{gridId}",
    scope: "pools:admin",
    find: (world, principal, param) => sharedGrid(world, principal, param("gridId")),
  }),
];
