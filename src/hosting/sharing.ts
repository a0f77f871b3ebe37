import type { CallOptions, ResponseMetadata, WithMetadata } from "./call.ts";
import type { ListQuery, Page, Share } from "./models.ts";
import type { CallInput } from "./request.ts";
import { type Route, routes } from "./routes.ts";

/** A resource that can be shared, with the path values that address it. */
export type SharedResource =
  | { type: "project"; projectId: string }
  | { type: "app"; projectId: string; appId: string }
  | { type: "grid"; gridId: string };

export type ShareRole = "viewer" | "editor" | "owner";

/** Who to share with: the service's user ID, or an email it looks the user up by. */
export type ShareTarget = { userId: string } | { email: string };

type Call = <R extends Route>(route: R, input: CallInput, o?: CallOptions) => Promise<WithMetadata<unknown>>;
type CallNoContent = (route: Route, input: CallInput, o?: CallOptions) => Promise<ResponseMetadata>;

const routesOf = {
  project: {
    list: routes.listProjectShares,
    add: routes.addProjectShare,
    change: routes.changeProjectShare,
    remove: routes.removeProjectShare,
  },
  app: {
    list: routes.listAppShares,
    add: routes.addAppShare,
    change: routes.changeAppShare,
    remove: routes.removeAppShare,
  },
  grid: {
    list: routes.listGridShares,
    add: routes.addGridShare,
    change: routes.changeGridShare,
    remove: routes.removeGridShare,
  },
} as const;

function paramsOf(resource: SharedResource): Record<string, string> {
  const { type: _, ...params } = resource;
  return params;
}

/** The client's sharing operations, over the client's own call functions. */
export function shareOperations(call: Call, callNoContent: CallNoContent) {
  return {
    listShares: async (resource: SharedResource, query: ListQuery = {}, o?: CallOptions) =>
      (await call(
        routesOf[resource.type].list,
        { params: paramsOf(resource), query: { ...query } },
        o,
      )) as WithMetadata<Page<Share>>,
    /** Not idempotent: a user who already has a share is `share_exists` (409). */
    addShare: async (resource: SharedResource, input: ShareTarget & { role: ShareRole }, o?: CallOptions) =>
      (await call(
        routesOf[resource.type].add,
        { params: paramsOf(resource), body: input },
        o,
      )) as WithMetadata<Share>,
    changeShare: async (resource: SharedResource, userId: string, role: ShareRole, o?: CallOptions) =>
      (await call(
        routesOf[resource.type].change,
        { params: { ...paramsOf(resource), userId }, body: { role } },
        o,
      )) as WithMetadata<Share>,
    removeShare: (resource: SharedResource, userId: string, o?: CallOptions) =>
      callNoContent(routesOf[resource.type].remove, { params: { ...paramsOf(resource), userId } }, o),
  };
}
