import { z } from "zod";
import { appRole, checkPinning, findApp, findProject, requireRole } from "../access.ts";
import type { Principal } from "../auth.ts";
import { planUpdate } from "../domain/app-update.ts";
import { forgetApp, redeploy, requestStart } from "../domain/apps.ts";
import { conflict, notFound, validationFailed } from "../errors.ts";
import { pageQuery, queryString } from "../http/query.ts";
import { defineRoute } from "../http/route.ts";
import { pageCutting, paginate } from "../pagination.ts";
import { requireScopes } from "../scopes.ts";
import type { App } from "../store/records.ts";
import type { World } from "../store/world.ts";
import { appView } from "../views.ts";
import { createAppBody, updateAppBody } from "./app-schemas.ts";

const APP_PATH = "/projects/{projectId}/apps/{appId}";

export const appRoutes = [
  defineRoute({
    operation: "listApps",
    method: "GET",
    path: "/projects/{projectId}/apps",
    scopes: ["apps:read"],
    query: z.object({ name: queryString.optional(), ...pageQuery }).strict(),
    handle: ({ world, principal, param, query }) => {
      const projectId = param("projectId");
      checkPinning(principal, projectId);
      const project = world.projects.get(projectId);
      if (project === undefined) throw notFound("project", projectId);
      const visible = [...world.apps.values()].filter(
        (a) =>
          a.projectId === projectId &&
          appRole(world, a, principal) !== undefined &&
          (query.name === undefined || a.name === query.name),
      );
      if (visible.length === 0 && !project.members.has(principal.user.id))
        throw notFound("project", projectId);
      const page = paginate(visible, {
        ...query,
        filters: { projectId, name: query.name },
        cutting: pageCutting(world),
      });
      return { status: 200, body: { items: page.items.map((a) => appView(a)), nextCursor: page.nextCursor } };
    },
  }),
  defineRoute({
    operation: "createApp",
    method: "POST",
    path: "/projects/{projectId}/apps",
    scopes: ["apps:write", "compute:spend"],
    body: createAppBody,
    idempotent: true,
    takesTime: () => true,
    handle: ({ world, principal, param, body, now }) => {
      const project = findProject(world, principal, param("projectId"), "editor", "creating an app");
      assertNameFree(world, project.id, body.name);
      const gridIds = Object.keys(body.config.gridPriorities);
      if (gridIds.length > 0) {
        requireRole(project.members.get(principal.user.id) ?? "viewer", "owner", "targeting grids");
        assertGridsVisible(world, principal, gridIds);
      }
      const app: App = {
        id: world.ids.objectId("app"),
        seq: world.nextSeq(),
        projectId: project.id,
        name: body.name,
        config: body.config,
        ...(body.source === undefined ? {} : { source: body.source }),
        imageReady: body.source === undefined,
        members: new Map(),
        createdAt: now,
        updatedAt: now,
        state: "requested",
        targetState: "running",
        nodes: [],
        errors: [],
        wired: false,
        waitingFor: null,
        generation: 0,
        logs: [],
        lastHeartbeatAt: now,
        nodeMs: 0,
        spent: 0,
      };
      world.apps.set(app.id, app);
      const start = requestStart(world, app, now);
      return { status: 201, body: appView(app, start) };
    },
  }),
  defineRoute({
    operation: "getApp",
    method: "GET",
    path: APP_PATH,
    scopes: ["apps:read"],
    handle: ({ world, principal, param }) => ({
      status: 200,
      body: appView(
        findApp(world, principal, param("projectId"), param("appId"), "viewer", "reading an app"),
      ),
    }),
  }),
  defineRoute({
    operation: "updateApp",
    method: "PATCH",
    path: APP_PATH,
    scopes: ["apps:write"],
    body: updateAppBody,
    handle: ({ world, principal, param, body, now }) => {
      const app = findApp(world, principal, param("projectId"), param("appId"), "editor", "updating an app");
      const plan = planUpdate(app, body);
      const redeploys = plan.changed.config || plan.changed.source;
      if (plan.changed.compute || (redeploys && !world.profile.spendOnlyForSizing)) {
        requireScopes(principal.key.scopes, ["apps:write", "compute:spend"]);
      }
      const role = appRole(world, app, principal) ?? "viewer";
      if (plan.changed.gridPriorities) {
        requireRole(role, "owner", "changing grid targeting");
        assertGridsVisible(world, principal, Object.keys(plan.config.gridPriorities));
      }
      if (plan.changed.source) requireRole(role, "owner", "changing the repository source");
      if (plan.name !== app.name) assertNameFree(world, app.projectId, plan.name);
      if (plan.name !== app.name || plan.changed.config || plan.changed.source) app.updatedAt = now;
      app.name = plan.name;
      app.config = plan.config;
      if (plan.source !== undefined) app.source = plan.source;
      if (plan.changed.ports) app.wired = false;
      if (plan.changed.source) app.imageReady = false;
      if (plan.changed.config || plan.changed.source) {
        redeploy(world, app, now, { sourceChanged: plan.changed.source });
      }
      return { status: 200, body: appView(app) };
    },
  }),
  defineRoute({
    operation: "deleteApp",
    method: "DELETE",
    path: APP_PATH,
    scopes: ["apps:admin"],
    handle: ({ world, principal, param }) => {
      const app = findApp(world, principal, param("projectId"), param("appId"), "owner", "deleting an app");
      if (app.state !== "stopped") {
        throw conflict(
          "app_not_stopped",
          `app ${app.id} is ${app.state}; stop it and wait until stopped first`,
          {
            state: app.state,
          },
        );
      }
      forgetApp(world, app);
      return { status: 204 };
    },
  }),
];

/** Names repeat at the harsh service; `uniqueNames` makes a taken app name a conflict. */
export function assertNameFree(world: World, projectId: string, name: string): void {
  if (!world.profile.uniqueNames) return;
  for (const app of world.apps.values()) {
    if (app.projectId === projectId && app.name === name) {
      throw conflict("name_taken", `project ${projectId} already has an app named "${name}" (${app.id})`, {
        appId: app.id,
      });
    }
  }
}

function assertGridsVisible(world: World, principal: Principal, gridIds: readonly string[]): void {
  const unknown = gridIds.filter((id) => !world.grids.get(id)?.members.has(principal.user.id));
  if (unknown.length > 0) {
    throw validationFailed(
      unknown.map((id) => ({ path: `config.gridPriorities.${id}`, message: "no such grid" })),
    );
  }
}
