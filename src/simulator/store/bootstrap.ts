import { addKey, addUser } from "../domain/accounts.ts";
import { deferRunningApps } from "../domain/apps.ts";
import { addOAuthToken } from "../mcp/oauth.ts";
import { type Seed, toMicros } from "../options.ts";
import { MICROS } from "./money.ts";
import { World, type WorldConfig } from "./world.ts";

const DEMO_USER_ID = "usr_demo";

/** A fresh world holding the seed's users and keys, or the demo user with one full-access key. */
export function createWorld(
  config: WorldConfig,
  seed: Seed | undefined,
  demoToken: string | undefined,
): World {
  const world = new World(config);
  world.onBalanceExhausted = (user, at) => deferRunningApps(world, user, at);
  const now = world.clock.now();
  if (seed === undefined) {
    addUser(world, { id: DEMO_USER_ID, email: "demo@sim.berth.dev", balance: 100 * MICROS }, now);
    addKey(world, { userId: DEMO_USER_ID, token: demoToken, scopes: ["*"], projectIds: [], expiresAt: null });
    return world;
  }
  for (const user of seed.users) {
    addUser(world, { ...user, balance: toMicros(user.balance) }, now);
    for (const key of user.keys) addKey(world, { ...key, userId: user.id });
    for (const token of user.oauthTokens) addOAuthToken(world, { ...token, userId: user.id }, now);
  }
  return world;
}
