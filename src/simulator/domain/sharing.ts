import { findApp, findGrid, findProject, requireRole } from "../access.ts";
import type { Principal } from "../auth.ts";
import { ApiError, conflict, notFound } from "../errors.ts";
import type { Members, Role, User } from "../store/records.ts";
import type { World } from "../store/world.ts";

/** Sharing of projects, apps and grids: who has which role, and who may change that. */

export type SharedType = "project" | "app" | "grid";

/** A resource whose shares a caller may manage. */
export interface Shared {
  type: SharedType;
  id: string;
  members: Members;
  /** The user whose account holds the resource (a project's or grid's creator; an app's project owner). */
  accountOwnerId: string;
  /** The caller's own role: nobody grants, changes or removes a role above their own. */
  callerRole: Role;
}

const rank: Record<Role, number> = { viewer: 0, editor: 1, owner: 2 };

/** Owners manage project sharing (projects:admin is checked by the route). */
export function sharedProject(world: World, principal: Principal, projectId: string): Shared {
  const project = findProject(world, principal, projectId, "owner", "managing project sharing");
  return {
    type: "project",
    id: project.id,
    members: project.members,
    accountOwnerId: project.ownerId,
    callerRole: "owner",
  };
}

/** Owners (of the app, or of its project) manage app sharing. */
export function sharedApp(world: World, principal: Principal, projectId: string, appId: string): Shared {
  const app = findApp(world, principal, projectId, appId, "owner", "managing app sharing");
  return {
    type: "app",
    id: app.id,
    members: app.members,
    accountOwnerId: world.projects.get(app.projectId)?.ownerId ?? "",
    callerRole: "owner",
  };
}

/** Grid editors can also manage grid sharing. */
export function sharedGrid(world: World, principal: Principal, gridId: string): Shared {
  const grid = findGrid(world, principal, gridId, "editor", "managing grid sharing");
  return {
    type: "grid",
    id: grid.id,
    members: grid.members,
    accountOwnerId: grid.ownerId,
    callerRole: grid.members.get(principal.user.id) ?? "editor",
  };
}

export interface ShareTarget {
  userId?: string | undefined;
  email?: string | undefined;
}

/** The user a share names, by ID or by email (case-insensitive). */
export function findUser(world: World, target: ShareTarget): User {
  if (target.userId !== undefined) {
    const user = world.users.get(target.userId);
    if (user === undefined) throw notFound("user", target.userId);
    return user;
  }
  const email = (target.email ?? "").toLowerCase();
  const user = [...world.users.values()].find((u) => u.email.toLowerCase() === email);
  if (user === undefined) {
    throw new ApiError(404, "not_found", `no user has the email ${target.email}`, { resourceType: "user" });
  }
  return user;
}

export function addShare(shared: Shared, user: User, role: Role): void {
  assertNotAccountOwner(shared, user.id);
  const existing = shared.members.get(user.id);
  if (existing !== undefined) {
    throw conflict(
      "share_exists",
      `user ${user.id} already has the ${existing} role on ${shared.type} ${shared.id}; change it with PATCH`,
      { userId: user.id, role: existing },
    );
  }
  assertWithinOwnRole(shared, role, "granting");
  shared.members.set(user.id, role);
}

export function changeShare(shared: Shared, userId: string, role: Role): void {
  assertNotAccountOwner(shared, userId);
  const existing = existingShare(shared, userId);
  assertWithinOwnRole(shared, existing, "changing a share with");
  assertWithinOwnRole(shared, role, "granting");
  shared.members.set(userId, role);
}

export function removeShare(shared: Shared, userId: string): void {
  assertNotAccountOwner(shared, userId);
  assertWithinOwnRole(shared, existingShare(shared, userId), "removing a share with");
  shared.members.delete(userId);
}

function existingShare(shared: Shared, userId: string): Role {
  const role = shared.members.get(userId);
  if (role === undefined) {
    throw new ApiError(404, "not_found", `user ${userId} has no share of ${shared.type} ${shared.id}`, {
      resourceType: "share",
    });
  }
  return role;
}

/** The account's owner always keeps the owner role: never removed, demoted or re-shared. */
function assertNotAccountOwner(shared: Shared, userId: string): void {
  if (userId !== shared.accountOwnerId) return;
  throw conflict(
    "owner_immutable",
    `user ${userId} owns ${shared.type} ${shared.id}; the owner's role cannot be shared, changed or removed`,
    { userId },
  );
}

function assertWithinOwnRole(shared: Shared, role: Role, action: string): void {
  if (rank[role] > rank[shared.callerRole])
    requireRole(shared.callerRole, role, `${action} the ${role} role`);
}
