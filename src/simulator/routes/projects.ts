import { z } from "zod";
import { findProject, projectRole } from "../access.ts";
import { forgetApp } from "../domain/apps.ts";
import { ApiError, conflict } from "../errors.ts";
import { pageQuery, queryString } from "../http/query.ts";
import { defineRoute } from "../http/route.ts";
import { pageCutting, paginate } from "../pagination.ts";
import type { Project } from "../store/records.ts";
import { projectView } from "../views.ts";
import { resourceName } from "./app-schemas.ts";

const projectBody = z.object({ name: resourceName }).strict();

export const projectRoutes = [
  defineRoute({
    operation: "listProjects",
    method: "GET",
    path: "/projects",
    scopes: ["projects:read"],
    query: z.object({ name: queryString.optional(), ...pageQuery }).strict(),
    handle: ({ world, principal, query }) => {
      const pinned = principal.key.projectIds;
      const visible = [...world.projects.values()].filter(
        (p) =>
          projectRole(p, principal) !== undefined &&
          (pinned.length === 0 || pinned.includes(p.id)) &&
          (query.name === undefined || p.name === query.name),
      );
      const page = paginate(visible, {
        ...query,
        filters: { name: query.name },
        cutting: pageCutting(world),
      });
      return { status: 200, body: { items: page.items.map(projectView), nextCursor: page.nextCursor } };
    },
  }),
  defineRoute({
    operation: "createProject",
    method: "POST",
    path: "/projects",
    scopes: ["projects:write"],
    body: projectBody,
    idempotent: true,
    takesTime: () => true,
    handle: ({ world, principal, body, now }) => {
      if (principal.key.projectIds.length > 0) {
        throw new ApiError(
          403,
          "key_project_restricted",
          "an API key pinned to projects cannot create a project",
        );
      }
      const project: Project = {
        id: world.ids.objectId("project"),
        seq: world.nextSeq(),
        name: body.name,
        ownerId: principal.user.id,
        members: new Map([[principal.user.id, "owner"]]),
        createdAt: now,
      };
      world.projects.set(project.id, project);
      return { status: 201, body: projectView(project) };
    },
  }),
  defineRoute({
    operation: "getProject",
    method: "GET",
    path: "/projects/{projectId}",
    scopes: ["projects:read"],
    handle: ({ world, principal, param }) => ({
      status: 200,
      body: projectView(findProject(world, principal, param("projectId"), "viewer", "reading a project")),
    }),
  }),
  defineRoute({
    operation: "renameProject",
    method: "PATCH",
    path: "/projects/{projectId}",
    scopes: ["projects:write"],
    body: projectBody,
    handle: ({ world, principal, param, body }) => {
      const project = findProject(world, principal, param("projectId"), "owner", "renaming a project");
      project.name = body.name;
      return { status: 200, body: projectView(project) };
    },
  }),
  defineRoute({
    operation: "deleteProject",
    method: "DELETE",
    path: "/projects/{projectId}",
    scopes: ["projects:admin"],
    handle: ({ world, principal, param }) => {
      const project = findProject(world, principal, param("projectId"), "owner", "deleting a project");
      const apps = [...world.apps.values()].filter((a) => a.projectId === project.id);
      const running = apps.find((a) => a.state !== "stopped");
      if (running !== undefined) {
        throw conflict(
          "app_not_stopped",
          `app ${running.id} is ${running.state}; stop every app and wait until stopped before deleting the project`,
          { state: running.state, appId: running.id },
        );
      }
      for (const app of apps) forgetApp(world, app);
      world.projects.delete(project.id);
      return { status: 204 };
    },
  }),
];
