import { ApiError, notFound } from "../errors.ts";
import type { ApiKey, User } from "../store/records.ts";
import type { World } from "../store/world.ts";

export interface NewUser {
  id?: string | undefined;
  email: string;
  balance: number;
}

export interface NewKey {
  userId: string;
  id?: string | undefined;
  token?: string | undefined;
  scopes: string[];
  projectIds: string[];
  expiresAt: string | null;
}

export function addUser(world: World, input: NewUser, now: number): User {
  const id = input.id ?? world.ids.prefixed("usr");
  if (world.users.has(id)) throw new ApiError(409, "already_exists", `user ${id} already exists`);
  const user: User = {
    id,
    email: input.email,
    balance: input.balance,
    frozen: false,
    createdAt: now,
    index: world.users.size,
    lastAccrualAt: now,
    costs: new Map(),
    spendGeneration: 0,
  };
  world.users.set(id, user);
  return user;
}

export function addKey(world: World, input: NewKey): ApiKey {
  if (!world.users.has(input.userId)) throw notFound("user", input.userId);
  const token = input.token ?? `bsk_${world.ids.hex("token", 40)}`;
  const id = input.id ?? world.ids.prefixed("key");
  if (world.keysByToken.has(token))
    throw new ApiError(409, "already_exists", "a key with this token already exists");
  if (world.keysById.has(id)) throw new ApiError(409, "already_exists", `key ${id} already exists`);
  const key: ApiKey = {
    id,
    token,
    userId: input.userId,
    scopes: [...input.scopes],
    projectIds: [...input.projectIds],
    expiresAt: input.expiresAt === null ? null : Date.parse(input.expiresAt),
    revoked: false,
  };
  world.keysByToken.set(token, key);
  world.keysById.set(id, key);
  return key;
}
