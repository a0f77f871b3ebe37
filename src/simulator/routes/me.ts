import { defineRoute } from "../http/route.ts";

export const meRoutes = [
  defineRoute({
    operation: "getMe",
    method: "GET",
    path: "/me",
    scopes: [],
    handle: ({ principal: { user, key } }) => ({
      status: 200,
      body: {
        user: { id: user.id, email: user.email },
        apiKey: {
          id: key.id,
          scopes: [...key.scopes],
          projectIds: [...key.projectIds],
          expiresAt: key.expiresAt === null ? null : new Date(key.expiresAt).toISOString(),
        },
        oauthClient: null,
      },
    }),
  }),
];
