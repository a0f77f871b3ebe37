import { z } from "zod";
import { findApp, findProject } from "../access.ts";
import { defineRoute } from "../http/route.ts";
import { appView } from "../views.ts";
import { assertNameFree } from "./apps.ts";

const moveBody = z.object({ projectId: z.string().regex(/^[0-9a-f]{24}$/) }).strict();

/**
 * Moves an app to another project, keeping its ID, builds and state (the spec names the operation
 * but not its path). Needs apps:admin, ownership of the app and at least editor on the target.
 * A move to where the app already is answers the app unchanged.
 */
export const appMoveRoutes = [
  defineRoute({
    operation: "moveApp",
    method: "POST",
    path: "/projects/{projectId}/apps/{appId}/move",
    scopes: ["apps:admin"],
    body: moveBody,
    handle: ({ world, principal, param, body, now }) => {
      const app = findApp(world, principal, param("projectId"), param("appId"), "owner", "moving an app");
      if (body.projectId !== app.projectId) {
        findProject(world, principal, body.projectId, "editor", "moving an app into a project");
        assertNameFree(world, body.projectId, app.name);
        app.projectId = body.projectId;
        app.updatedAt = now;
        for (const build of world.builds.values())
          if (build.appId === app.id) build.projectId = body.projectId;
      }
      return { status: 200, body: appView(app) };
    },
  }),
];
