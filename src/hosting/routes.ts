import type { z } from "zod";
import type { RetrySafety } from "./classify.ts";
import * as s from "./schemas.ts";

/** Decides the timeout: quick reads, writes the service acts on, and large exports. */
export type CallKind = "read" | "write" | "export";

export interface RouteSpec<S extends z.ZodType = z.ZodType> {
  method: "GET" | "POST" | "PATCH" | "DELETE";
  /** Below the base URL; `{name}` segments are filled with URL-encoded path values. */
  path: string;
  safety: RetrySafety;
  callKind: CallKind;
  response: S;
}

export interface Route<S extends z.ZodType = z.ZodType> extends RouteSpec<S> {
  /** The service's operation name, also the `operation` label of metrics and logs. */
  operation: string;
}

type ParamNames<P extends string> = P extends `${string}{${infer Name}}${infer Rest}`
  ? Name | ParamNames<Rest>
  : never;

/** `{projectId: string, appId: string}` for `/projects/{projectId}/apps/{appId}`. */
export type PathParams<P extends string> = { [K in ParamNames<P>]: string };

function defineRoutes<const T extends Record<string, RouteSpec>>(
  specs: T,
): { [K in keyof T]: T[K] & { operation: K } } {
  return Object.fromEntries(
    Object.entries(specs).map(([operation, spec]) => [operation, { ...spec, operation }]),
  ) as { [K in keyof T]: T[K] & { operation: K } };
}

const app = "/projects/{projectId}/apps/{appId}";

/**
 * Every operation berth calls, in one table to match against the service's OpenAPI file.
 * Safety: `safe` may be repeated (reads; PATCH of the same fields; start/stop, which converge);
 * `with-key` creates replay under the same Idempotency-Key; `never` acts again on every call.
 */
export const routes = defineRoutes({
  getMe: { method: "GET", path: "/me", safety: "safe", callKind: "read", response: s.me },

  listProjects: {
    method: "GET",
    path: "/projects",
    safety: "safe",
    callKind: "read",
    response: s.page(s.project),
  },
  createProject: {
    method: "POST",
    path: "/projects",
    safety: "with-key",
    callKind: "write",
    response: s.created,
  },
  getProject: {
    method: "GET",
    path: "/projects/{projectId}",
    safety: "safe",
    callKind: "read",
    response: s.project,
  },
  renameProject: {
    method: "PATCH",
    path: "/projects/{projectId}",
    safety: "safe",
    callKind: "write",
    response: s.project,
  },
  deleteProject: {
    method: "DELETE",
    path: "/projects/{projectId}",
    safety: "never",
    callKind: "write",
    response: s.empty,
  },

  listApps: {
    method: "GET",
    path: "/projects/{projectId}/apps",
    safety: "safe",
    callKind: "read",
    response: s.page(s.app),
  },
  createApp: {
    method: "POST",
    path: "/projects/{projectId}/apps",
    safety: "with-key",
    callKind: "write",
    response: s.createdApp,
  },
  getApp: { method: "GET", path: app, safety: "safe", callKind: "read", response: s.app },
  updateApp: { method: "PATCH", path: app, safety: "safe", callKind: "write", response: s.app },
  deleteApp: { method: "DELETE", path: app, safety: "never", callKind: "write", response: s.empty },
  /** Moves the app to another project, keeping its ID (path not in the spec; see docs/simulator.md). */
  moveApp: { method: "POST", path: `${app}/move`, safety: "safe", callKind: "write", response: s.app },
  getAppStatus: {
    method: "GET",
    path: `${app}/status`,
    safety: "safe",
    callKind: "read",
    response: s.appStatus,
  },
  startApp: {
    method: "POST",
    path: `${app}/start`,
    safety: "safe",
    callKind: "write",
    response: s.accepted,
  },
  stopApp: {
    method: "POST",
    path: `${app}/stop`,
    safety: "safe",
    callKind: "write",
    response: s.accepted,
  },
  restartApp: {
    method: "POST",
    path: `${app}/restart`,
    safety: "never",
    callKind: "write",
    response: s.accepted,
  },
  triggerBuild: {
    method: "POST",
    path: `${app}/builds`,
    safety: "never",
    callKind: "write",
    response: s.accepted,
  },
  getAppLogs: {
    method: "GET",
    path: `${app}/logs`,
    safety: "safe",
    callKind: "export",
    response: s.logExport,
  },
  getAppUsage: { method: "GET", path: `${app}/usage`, safety: "safe", callKind: "read", response: s.usage },

  getBuild: { method: "GET", path: "/builds/{buildId}", safety: "safe", callKind: "read", response: s.build },
  getBuildLogs: {
    method: "GET",
    path: "/builds/{buildId}/logs",
    safety: "safe",
    callKind: "export",
    response: s.logExport,
  },

  listGrids: { method: "GET", path: "/grids", safety: "safe", callKind: "read", response: s.page(s.grid) },
  createGrid: { method: "POST", path: "/grids", safety: "with-key", callKind: "write", response: s.created },
  getGrid: { method: "GET", path: "/grids/{gridId}", safety: "safe", callKind: "read", response: s.grid },
  deleteGrid: {
    method: "DELETE",
    path: "/grids/{gridId}",
    safety: "never",
    callKind: "write",
    response: s.empty,
  },

  listServers: {
    method: "GET",
    path: "/servers",
    safety: "safe",
    callKind: "read",
    response: s.page(s.server),
  },
  getServer: {
    method: "GET",
    path: "/servers/{address}",
    safety: "safe",
    callKind: "read",
    response: s.server,
  },
  listOrders: {
    method: "GET",
    path: "/servers/orders",
    safety: "safe",
    callKind: "read",
    response: s.page(s.order),
  },
  getOrder: {
    method: "GET",
    path: "/servers/orders/{orderId}",
    safety: "safe",
    callKind: "read",
    response: s.order,
  },
  provisionServers: {
    method: "POST",
    path: "/servers/provision",
    safety: "with-key",
    callKind: "write",
    response: s.provisionResult,
  },
  replaceServer: {
    method: "POST",
    path: "/servers/{address}/replace",
    safety: "with-key",
    callKind: "write",
    response: s.replaceResult,
  },
  powerServers: {
    method: "POST",
    path: "/servers/power",
    safety: "never",
    callKind: "write",
    response: s.accepted,
  },
  deprovisionServers: {
    method: "POST",
    path: "/servers/deprovision",
    safety: "never",
    callKind: "write",
    response: s.accepted,
  },

  listRegions: {
    method: "GET",
    path: "/catalog/regions",
    safety: "safe",
    callKind: "read",
    response: s.page(s.region),
  },
  listZones: {
    method: "GET",
    path: "/catalog/zones",
    safety: "safe",
    callKind: "read",
    response: s.page(s.zone),
  },
  listInstanceTypes: {
    method: "GET",
    path: "/catalog/instance-types",
    safety: "safe",
    callKind: "read",
    response: s.page(s.instanceType),
  },

  getBalance: {
    method: "GET",
    path: "/billing/balance",
    safety: "safe",
    callKind: "read",
    response: s.balance,
  },
  getCosts: { method: "GET", path: "/billing/costs", safety: "safe", callKind: "read", response: s.costs },
  listInvoices: {
    method: "GET",
    path: "/billing/invoices",
    safety: "safe",
    callKind: "read",
    response: s.page(s.invoice),
  },
  getInvoice: {
    method: "GET",
    path: "/billing/invoices/{invoiceNumber}",
    safety: "safe",
    callKind: "read",
    response: s.invoice,
  },

  ...shareRoutes("Project", "/projects/{projectId}"),
  ...shareRoutes("App", app),
  ...shareRoutes("Grid", "/grids/{gridId}"),
});

/** Sharing of one resource type: list, add, change a role, remove (paths the spec does not show). */
function shareRoutes<const N extends string>(noun: N, base: string) {
  return {
    [`list${noun}Shares`]: {
      method: "GET",
      path: `${base}/shares`,
      safety: "safe",
      callKind: "read",
      response: s.page(s.share),
    },
    // Not idempotent at the service: a repeated add answers share_exists, a repeated remove not_found.
    [`add${noun}Share`]: {
      method: "POST",
      path: `${base}/shares`,
      safety: "never",
      callKind: "write",
      response: s.share,
    },
    [`change${noun}Share`]: {
      method: "PATCH",
      path: `${base}/shares/{userId}`,
      safety: "safe",
      callKind: "write",
      response: s.share,
    },
    [`remove${noun}Share`]: {
      method: "DELETE",
      path: `${base}/shares/{userId}`,
      safety: "never",
      callKind: "write",
      response: s.empty,
    },
  } as const satisfies Record<string, RouteSpec> as ShareRoutes<N>;
}

type ShareRoutes<N extends string> = {
  [K in `list${N}Shares`]: RouteSpec<ReturnType<typeof s.page<typeof s.share>>>;
} & { [K in `add${N}Share` | `change${N}Share`]: RouteSpec<typeof s.share> } & {
  [K in `remove${N}Share`]: RouteSpec<typeof s.empty>;
};

export type Routes = typeof routes;
export type OperationName = keyof Routes;

/** `/projects/a%2Fb/apps` for `/projects/{projectId}/apps` and `{projectId: "a/b"}`. */
export function fillPath(template: string, params: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined || value === "") throw new TypeError(`path value "${name}" is missing or empty`);
    return encodeURIComponent(value);
  });
}
