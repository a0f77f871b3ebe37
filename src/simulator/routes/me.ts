import { defineRoute } from "../http/route.ts";

export const meRoutes = [
  defineRoute({
    operation: "getMe",
    method: "GET",
    path: "/me",
    scopes: [],
    handle: ({ principal: { user, key } }) => {
      const grant = {
        scopes: [...key.scopes],
        expiresAt: key.expiresAt === null ? null : new Date(key.expiresAt).toISOString(),
      };
      const oauth = key.oauthClient;
      return {
        status: 200,
        body: {
          user: { id: user.id, email: user.email },
          // An OAuth access token (MCP only) shows its client instead of a key.
          apiKey: oauth === undefined ? { id: key.id, ...grant, projectIds: [...key.projectIds] } : null,
          oauthClient: oauth === undefined ? null : { clientId: oauth.clientId, tokenId: key.id, ...grant },
        },
      };
    },
  }),
];
