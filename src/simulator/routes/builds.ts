import { findBuild } from "../access.ts";
import { exportLogs } from "../domain/logs.ts";
import { defineRoute } from "../http/route.ts";
import { buildView } from "../views.ts";
import { logsQuery } from "./app-actions.ts";

export const buildRoutes = [
  defineRoute({
    operation: "getBuild",
    method: "GET",
    path: "/builds/{buildId}",
    scopes: ["apps:read"],
    handle: ({ world, principal, param, now }) => {
      const build = findBuild(world, principal, param("buildId"));
      world.stats.poll("getBuild", build.id, now);
      return { status: 200, body: buildView(world, build, now) };
    },
  }),
  defineRoute({
    operation: "getBuildLogs",
    method: "GET",
    path: "/builds/{buildId}/logs",
    scopes: ["monitoring:read"],
    query: logsQuery,
    handle: ({ world, principal, param, query }) => ({
      status: 200,
      body: exportLogs(findBuild(world, principal, param("buildId")).logs, query.maxBytes),
    }),
  }),
];
