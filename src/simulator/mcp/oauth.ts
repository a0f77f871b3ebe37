import { addKey } from "../domain/accounts.ts";
import type { ApiKey } from "../store/records.ts";
import type { World } from "../store/world.ts";

/** How long an OAuth access token lives when its issuer names no expiry (simulated seconds). */
export const OAUTH_TOKEN_TTL_SEC = 3600;

export interface NewOAuthToken {
  userId: string;
  id?: string | undefined;
  token?: string | undefined;
  clientId: string;
  scopes: string[];
  /** Absent: `OAUTH_TOKEN_TTL_SEC` after `now`; null: never. */
  expiresAt?: string | null | undefined;
}

/**
 * Issues an OAuth access token: a credential like an API key (scopes, expiry, revocation, its own
 * rate-limit bucket; never pinned to projects) that only the MCP server accepts.
 */
export function addOAuthToken(world: World, input: NewOAuthToken, now: number): ApiKey {
  const expiresAt =
    input.expiresAt === undefined
      ? new Date(now + OAUTH_TOKEN_TTL_SEC * 1000).toISOString()
      : input.expiresAt;
  const key = addKey(world, {
    userId: input.userId,
    id: input.id ?? world.ids.prefixed("tok"),
    token: input.token ?? `oat_${world.ids.hex("oauth", 40)}`,
    scopes: input.scopes,
    projectIds: [],
    expiresAt,
  });
  key.oauthClient = { clientId: input.clientId };
  return key;
}
