import type { Principal } from "./auth.ts";
import { ApiError, notFound } from "./errors.ts";
import type { App, Build, Grid, Project, Role, Server } from "./store/records.ts";
import type { World } from "./store/world.ts";

/** Resource roles, and key pinning: who may see or change what. */

const rank: Record<Role, number> = { viewer: 0, editor: 1, owner: 2 };

function higher(a: Role | undefined, b: Role | undefined): Role | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return rank[a] >= rank[b] ? a : b;
}

export function requireRole(role: Role, needed: Role, action: string): void {
  if (rank[role] < rank[needed]) {
    throw new ApiError(403, "forbidden", `${action} needs the ${needed} role; you are ${role}`, {
      requiredRole: needed,
    });
  }
}

/** A key with non-empty projectIds reaches only those projects. */
export function checkPinning(principal: Principal, projectId: string): void {
  const pinned = principal.key.projectIds;
  if (pinned.length > 0 && !pinned.includes(projectId)) {
    throw new ApiError(
      403,
      "key_project_restricted",
      `this API key is not allowed to access project ${projectId}`,
      {
        projectId,
      },
    );
  }
}

export function projectRole(project: Project, principal: Principal): Role | undefined {
  return project.members.get(principal.user.id);
}

export function findProject(
  world: World,
  principal: Principal,
  projectId: string,
  needed: Role,
  action: string,
): Project {
  checkPinning(principal, projectId);
  const project = world.projects.get(projectId);
  const role = project === undefined ? undefined : projectRole(project, principal);
  if (project === undefined || role === undefined) throw notFound("project", projectId);
  requireRole(role, needed, action);
  return project;
}

export function appRole(world: World, app: App, principal: Principal): Role | undefined {
  const project = world.projects.get(app.projectId);
  const fromProject = project === undefined ? undefined : projectRole(project, principal);
  return higher(fromProject, app.members.get(principal.user.id));
}

export function findApp(
  world: World,
  principal: Principal,
  projectId: string,
  appId: string,
  needed: Role,
  action: string,
): App {
  checkPinning(principal, projectId);
  const app = world.apps.get(appId);
  const role = app === undefined || app.projectId !== projectId ? undefined : appRole(world, app, principal);
  if (app === undefined || role === undefined) {
    if (!world.projects.has(projectId)) throw notFound("project", projectId);
    throw notFound("app", appId);
  }
  requireRole(role, needed, action);
  return app;
}

export function findBuild(world: World, principal: Principal, buildId: string): Build {
  const build = world.builds.get(buildId);
  if (build === undefined) throw notFound("build", buildId);
  findApp(world, principal, build.projectId, build.appId, "viewer", "reading a build");
  return build;
}

export function findGrid(
  world: World,
  principal: Principal,
  gridId: string,
  needed: Role,
  action: string,
): Grid {
  const grid = world.grids.get(gridId);
  const role = grid === undefined ? undefined : grid.members.get(principal.user.id);
  if (grid === undefined || role === undefined) throw notFound("grid", gridId);
  requireRole(role, needed, action);
  return grid;
}

export function findServer(world: World, principal: Principal, address: string): Server {
  const server = world.servers.get(address);
  if (server === undefined || server.ownerId !== principal.user.id) throw notFound("server", address);
  return server;
}
