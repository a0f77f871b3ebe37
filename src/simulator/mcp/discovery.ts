import type { IncomingMessage } from "node:http";
import { knownScopes } from "../scopes.ts";

/** Where RFC 9728 Protected Resource Metadata of the MCP server is served (both forms clients try). */
export const PROTECTED_RESOURCE_PATHS: readonly string[] = [
  "/.well-known/oauth-protected-resource/mcp",
  "/.well-known/oauth-protected-resource",
];

/** The simulator's own origin, as the client addressed it. */
export function originOf(request: IncomingMessage): string {
  return `http://${request.headers.host ?? "localhost"}`;
}

/**
 * RFC 9728 metadata for `/mcp`, so an MCP client can discover how to authenticate. The simulator
 * runs no authorization server: OAuth access tokens are minted by `POST /_sim/oauth-tokens`.
 */
export function protectedResourceMetadata(request: IncomingMessage): Record<string, unknown> {
  const origin = originOf(request);
  return {
    resource: `${origin}/mcp`,
    authorization_servers: [origin],
    bearer_methods_supported: ["header"],
    scopes_supported: [...knownScopes],
    resource_name: "berth hosting API simulator (MCP)",
  };
}

/** The `WWW-Authenticate` of a 401 from `/mcp`: Bearer, pointing at the metadata (RFC 9728 §5.1). */
export function wwwAuthenticate(request: IncomingMessage): string {
  return `Bearer resource_metadata="${originOf(request)}${PROTECTED_RESOURCE_PATHS[0]}"`;
}

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);

/**
 * Whether an `Origin` header may reach the MCP server (the transport spec requires servers to
 * validate it against DNS rebinding): absent, the simulator's own origin, or a loopback origin.
 */
export function originAllowed(request: IncomingMessage): boolean {
  const origin = request.headers.origin;
  if (origin === undefined) return true;
  if (origin === originOf(request)) return true;
  try {
    const url = new URL(origin);
    return (url.protocol === "http:" || url.protocol === "https:") && LOOPBACK.has(url.hostname);
  } catch {
    return false;
  }
}
