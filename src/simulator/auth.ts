import { ApiError } from "./errors.ts";
import type { ApiKey, User } from "./store/records.ts";
import type { World } from "./store/world.ts";

export interface Principal {
  user: User;
  key: ApiKey;
}

const JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/** OAuth access tokens (JWTs, or the `oat_`/`oauth_` prefixes) only work with the MCP server. */
export function looksLikeOAuthToken(token: string): boolean {
  return token.startsWith("oat_") || token.startsWith("oauth_") || JWT.test(token);
}

function unauthorized(message: string): ApiError {
  return new ApiError(401, "unauthorized", message);
}

/**
 * Resolves `Authorization: Bearer <token>` to the key and its user. OAuth access tokens pass only
 * with `oauth` set (the MCP server). The token never appears in an error.
 */
export function authenticate(
  world: World,
  authorization: string | undefined,
  now: number,
  oauth = false,
): Principal {
  if (authorization === undefined || authorization === "") {
    throw unauthorized("no credential: send the API key as 'Authorization: Bearer <key>'");
  }
  const match = /^Bearer +(\S+) *$/i.exec(authorization);
  const token = match?.[1];
  if (token === undefined) {
    throw unauthorized("malformed Authorization header: expected 'Bearer <key>'");
  }
  const isOAuth = looksLikeOAuthToken(token);
  if (isOAuth && !oauth) {
    throw unauthorized("OAuth access tokens are accepted only by the MCP server; use an API key for REST");
  }
  const key = world.keysByToken.get(token);
  const user = key === undefined ? undefined : world.users.get(key.userId);
  const [kind, renew] = isOAuth ? ["OAuth access token", "authorize again"] : ["API key", "create a new key"];
  if (key === undefined || user === undefined) throw unauthorized(`the ${kind} is not valid`);
  if (key.revoked) throw unauthorized(`${kind} ${key.id} was revoked; ${renew}`);
  if (key.expiresAt !== null && key.expiresAt <= now) {
    throw unauthorized(`${kind} ${key.id} expired at ${new Date(key.expiresAt).toISOString()}; ${renew}`);
  }
  return { user, key };
}
