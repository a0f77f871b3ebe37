import { z } from "zod";
import { addKey, addUser } from "../domain/accounts.ts";
import { resumeWaiting } from "../domain/apps.ts";
import { accrue, scheduleExhaustion } from "../domain/billing.ts";
import { BUILD_STEPS } from "../domain/builds.ts";
import { failServer, repriceServer } from "../domain/servers.ts";
import { notFound, validationFailed } from "../errors.ts";
import { type ActiveFault, type FaultTargets, faultProblems, faultSchema } from "../faults.ts";
import { parseWith } from "../http/inputs.ts";
import { mcpOnlyRoutes } from "../mcp/mcp-routes.ts";
import { addOAuthToken } from "../mcp/oauth.ts";
import { money, newKeySchema, newOAuthTokenSchema, newUserSchema, type Seed, toMicros } from "../options.ts";
import { type Profile, type ProfileInput, profileInputSchema, resolveProfile } from "../profile.ts";
import { routes } from "../routes/index.ts";
import { createWorld } from "../store/bootstrap.ts";
import { formatMoney } from "../store/money.ts";
import type { User } from "../store/records.ts";
import type { RequestRecord } from "../store/request-log.ts";
import type { StatsView } from "../store/stats.ts";
import type { World, WorldConfig } from "../store/world.ts";
import { type Timings, timingsSchema } from "../timings.ts";

export const shareSchema = z
  .object({
    resourceType: z.enum(["project", "app", "grid"]),
    resourceId: z.string().min(1),
    userId: z.string().min(1),
    role: z.enum(["owner", "editor", "viewer"]),
  })
  .strict();

export const failureSchema = z
  .object({
    kind: z.enum(["build", "start", "order", "wake"]),
    count: z.number().int().min(1).max(1000).default(1),
    step: z.enum(BUILD_STEPS).default("build"),
  })
  .strict();

/** Every operation a fault can name: the REST routes and the MCP-only operations. */
const faultableOperations: FaultTargets["operations"] = new Map(
  [...routes, ...mcpOnlyRoutes].map((route) => [route.operation, { idempotent: route.idempotent === true }]),
);

export interface UserView {
  id: string;
  email: string;
  balance: string;
  frozen: boolean;
}

export interface KeyView {
  id: string;
  token: string;
  userId: string;
  scopes: string[];
  projectIds: string[];
  expiresAt: string | null;
}

export interface OAuthTokenView {
  id: string;
  token: string;
  userId: string;
  clientId: string;
  scopes: string[];
  expiresAt: string | null;
}

/** The in-process control of a running simulator; the /_sim HTTP API calls the same methods. */
export class SimControl {
  readonly #holder: { world: World };
  readonly #config: WorldConfig;
  readonly #seed: Seed | undefined;
  readonly #demoToken: string | undefined;

  constructor(
    holder: { world: World },
    config: WorldConfig,
    seed: Seed | undefined,
    demoToken: string | undefined,
  ) {
    this.#holder = holder;
    this.#config = config;
    this.#seed = seed;
    this.#demoToken = demoToken;
  }

  get #world(): World {
    return this.#holder.world;
  }

  addUser(input: z.input<typeof newUserSchema>): UserView {
    const parsed = parseWith(newUserSchema, input, "");
    return userView(
      addUser(this.#world, { ...parsed, balance: toMicros(parsed.balance) }, this.#world.settle()),
    );
  }

  addKey(input: z.input<typeof newKeySchema>): KeyView {
    const key = addKey(this.#world, parseWith(newKeySchema, input, ""));
    return {
      id: key.id,
      token: key.token,
      userId: key.userId,
      scopes: [...key.scopes],
      projectIds: [...key.projectIds],
      expiresAt: key.expiresAt === null ? null : new Date(key.expiresAt).toISOString(),
    };
  }

  /** An OAuth access token, accepted by the MCP server only; `revokeKey(id)` revokes it. */
  addOAuthToken(input: z.input<typeof newOAuthTokenSchema>): OAuthTokenView {
    const parsed = parseWith(newOAuthTokenSchema, input, "");
    const token = addOAuthToken(this.#world, parsed, this.#world.settle());
    return {
      id: token.id,
      token: token.token,
      userId: token.userId,
      clientId: parsed.clientId,
      scopes: [...token.scopes],
      expiresAt: token.expiresAt === null ? null : new Date(token.expiresAt).toISOString(),
    };
  }

  revokeKey(keyId: string): void {
    const key = this.#world.keysById.get(keyId);
    if (key === undefined) throw notFound("key", keyId);
    key.revoked = true;
  }

  setBalance(userId: string, balance: number | string): string {
    const micros = toMicros(parseWith(money, balance, "balance"));
    const user = this.#user(userId);
    const now = this.#world.settle();
    accrue(this.#world, user, now);
    user.balance = micros;
    scheduleExhaustion(this.#world, user, now);
    resumeWaiting(this.#world, now);
    return formatMoney(user.balance);
  }

  balance(userId: string): string {
    const user = this.#user(userId);
    accrue(this.#world, user, this.#world.settle());
    return formatMoney(user.balance);
  }

  freeze(userId: string, frozen = true): void {
    this.#user(userId).frozen = frozen;
  }

  share(input: z.input<typeof shareSchema>): void {
    const { resourceType, resourceId, userId, role } = parseWith(shareSchema, input, "");
    this.#user(userId);
    const world = this.#world;
    const resource =
      resourceType === "project"
        ? world.projects.get(resourceId)
        : resourceType === "app"
          ? world.apps.get(resourceId)
          : world.grids.get(resourceId);
    if (resource === undefined) throw notFound(resourceType, resourceId);
    resource.members.set(userId, role);
  }

  /** Adds a fault rule; one that names no operation or key, or could never change an answer, is a 400. */
  injectFault(fault: z.input<typeof faultSchema>): string {
    const parsed = parseWith(faultSchema, fault, "");
    const problems = faultProblems(parsed, {
      operations: faultableOperations,
      keyExists: (keyId) => this.#world.keysById.has(keyId),
    });
    if (problems.length > 0) throw validationFailed(problems);
    return this.#world.faults.add(parsed);
  }

  /** The active fault rules, each with its `hits` (and `times` left). */
  faults(): ActiveFault[] {
    return this.#world.faults.list();
  }

  /** Rules whose `times` ran out, with their hits, until cleared. */
  spentFaults(): ActiveFault[] {
    return this.#world.faults.spent();
  }

  clearFaults(id?: string): void {
    if (!this.#world.faults.clear(id)) throw notFound("fault", id ?? "");
  }

  timings(): Timings {
    return { ...this.#world.timings };
  }

  setTimings(partial: Partial<Timings>): Timings {
    Object.assign(this.#world.timings, parseWith(timingsSchema.partial(), partial, ""));
    return this.timings();
  }

  profile(): Profile {
    return { ...this.#world.profile };
  }

  /** A preset, or switches over a base preset (default: the current profile). */
  setProfile(input: ProfileInput): Profile {
    const parsed = parseWith(profileInputSchema, input, "");
    const world = this.#world;
    world.profile =
      typeof parsed === "string" || parsed.base !== undefined
        ? resolveProfile(parsed)
        : { ...world.profile, ...stripBase(parsed) };
    return this.profile();
  }

  stats(): StatsView {
    return this.#world.stats.view();
  }

  failNext(input: z.input<typeof failureSchema>): void {
    const { kind, count, step } = parseWith(failureSchema, input, "");
    const failures = this.#world.failures;
    if (kind === "build") failures.builds.push(...Array.from({ length: count }, () => step));
    else if (kind === "start") failures.starts += count;
    else if (kind === "order") failures.orders += count;
    else failures.wakes += count;
  }

  failNextBuild(options: { step?: (typeof BUILD_STEPS)[number]; count?: number } = {}): void {
    this.failNext({ kind: "build", ...options });
  }

  failNextStart(count = 1): void {
    this.failNext({ kind: "start", count });
  }

  failNextOrder(count = 1): void {
    this.failNext({ kind: "order", count });
  }

  failNextWake(count = 1): void {
    this.failNext({ kind: "wake", count });
  }

  /** The server breaks (state `failed`) until it is replaced or deprovisioned. */
  failServer(address: string): void {
    const world = this.#world;
    const server = world.servers.get(address.toLowerCase());
    if (server === undefined) throw notFound("server", address);
    failServer(world, server, world.settle());
  }

  /**
   * The provider raises (or lowers) a server's price: it is charged `hourlyPrice` per hour from now
   * on, running or hibernated (10 % of it), as the provider repricing a machine. Returns the new price.
   */
  repriceServer(address: string, hourlyPrice: number | string): string {
    const world = this.#world;
    const server = world.servers.get(address.toLowerCase());
    if (server === undefined) throw notFound("server", address);
    const micros = toMicros(parseWith(money, hourlyPrice, "hourlyPrice"));
    repriceServer(world, server, micros, world.settle());
    return formatMoney(server.hourlyPrice);
  }

  setCapacity(zone: string, available: boolean): void {
    const world = this.#world;
    if (available) world.zonesWithoutCapacity.delete(zone);
    else world.zonesWithoutCapacity.add(zone);
    resumeWaiting(world, world.settle());
  }

  now(): Date {
    return new Date(this.#world.settle());
  }

  clock(): { now: string; speed: number; frozen: boolean } {
    const { clock } = this.#world;
    return { now: this.now().toISOString(), speed: clock.speed, frozen: clock.frozen };
  }

  /** Moves simulated time forward and runs every transition that became due, in order. */
  advanceClock(seconds: number): Date {
    if (!Number.isFinite(seconds) || seconds < 0) {
      throw validationFailed([{ path: "advanceSec", message: "must be a number of seconds, 0 or more" }]);
    }
    this.#world.clock.advance(seconds * 1000);
    return this.now();
  }

  setClock(to: Date | string | number): Date {
    const world = this.#world;
    const target = new Date(to).getTime();
    if (Number.isNaN(target))
      throw validationFailed([{ path: "set", message: "must be an ISO-8601 date-time" }]);
    if (target < world.clock.now()) {
      throw validationFailed([{ path: "set", message: "the clock only moves forward; reset to go back" }]);
    }
    world.clock.set(target);
    return this.now();
  }

  requests(filter: { operation?: string } = {}): RequestRecord[] {
    return this.#world.requestLog.list(filter.operation);
  }

  /** Back to the start: seed users (or the demo user and key), clock, ids, no faults. */
  reset(): void {
    this.#holder.world = createWorld(this.#config, this.#seed, this.#demoToken);
  }

  #user(userId: string): User {
    const user = this.#world.users.get(userId);
    if (user === undefined) throw notFound("user", userId);
    return user;
  }
}

function stripBase<T extends { base?: unknown }>(input: T): Omit<T, "base"> {
  const { base: _, ...rest } = input;
  return rest;
}

function userView(user: User): UserView {
  return { id: user.id, email: user.email, balance: formatMoney(user.balance), frozen: user.frozen };
}
