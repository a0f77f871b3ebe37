import { createHash } from "node:crypto";
import { type BackoffPolicy, defaultBackoff } from "./backoff.ts";
import {
  type Caller,
  type CallOptions,
  createCaller,
  type ResponseMetadata,
  type WithMetadata,
} from "./call.ts";
import { type Clock, createSystemClock } from "./clock.ts";
import { HostingResponseInvalidError } from "./errors.ts";
import type { RateLimiter } from "./limiter.ts";
import {
  documentedLimits,
  type LimiterDefaults,
  LimiterRegistry,
  type LimiterTuning,
} from "./limiter-registry.ts";
import type * as m from "./models.ts";
import type { HostingLogger, HostingObserver } from "./observer.ts";
import type { CallInput } from "./request.ts";
import { type CallKind, type Route, routes } from "./routes.ts";
import { shareOperations } from "./sharing.ts";
import { createHttpTransport, type Transport, type TransportOptions } from "./transport.ts";

export interface HostingClientOptions {
  /** The service's base URL, ending in the version prefix, e.g. `https://api.example.com/v1`. */
  baseUrl: string;
  apiKey: string;
  observer?: HostingObserver;
  logger?: HostingLogger;
  clock?: Clock;
  /** Source of jitter; injectable for tests. */
  random?: () => number;
  /** Shared limiters (one per credential and per user); a client makes its own without it. */
  limiters?: LimiterRegistry;
  /** Limits and tuning for the limiters the client makes itself. */
  limits?: Partial<LimiterDefaults>;
  limiterTuning?: LimiterTuning;
  /** Shared connections to `baseUrl`; a client makes its own pool without it (and closes it on close). */
  transport?: Transport;
  transportOptions?: TransportOptions;
  backoff?: Partial<BackoffPolicy>;
  timeoutsMs?: Partial<Record<CallKind, number>>;
  /**
   * The longest a call waits for room in the budget; beyond it, it fails with a BudgetWaitError
   * saying when to come back (so a controller's worker is never held by the budget). Default: no bound.
   */
  maxBudgetWaitMs?: number;
}

export type CreateOptions = CallOptions & {
  /** Derive with `idempotencyKey(ownerUid, operation, args)`: the same create must reuse the same key. */
  idempotencyKey: string;
};

const defaultTimeoutsMs: Record<CallKind, number> = { read: 10_000, write: 30_000, export: 60_000 };

export type HostingClient = ReturnType<typeof createHostingClient>;

/** A non-secret short id for a credential (metrics labels, logs, cache keys). */
export function credentialIdOf(apiKey: string): string {
  return `key-${createHash("sha256").update(apiKey).digest("hex").slice(0, 12)}`;
}

/**
 * A typed client for one credential. Keep one per credential and reuse it: it carries that
 * credential's rate-limit budget (and, once `getMe()` told who the user is, the user's).
 */
export function createHostingClient(options: HostingClientOptions) {
  if (options.apiKey === "" || /\s/.test(options.apiKey)) {
    throw new TypeError(
      "hosting API key is empty or contains whitespace; check the credentials Secret's apiKey",
    );
  }
  const clock = options.clock ?? createSystemClock();
  const limiters = options.limiters ?? new LimiterRegistry(clock, options.limits, options.limiterTuning);
  const transport = options.transport ?? createHttpTransport(options.baseUrl, options.transportOptions);
  const credentialId = credentialIdOf(options.apiKey);
  const credentialLimiter = limiters.forCredential(credentialId);
  const user: { limiter: RateLimiter | undefined } = { limiter: undefined };

  const caller = createCaller({
    transport,
    baseUrl: options.baseUrl,
    apiKey: options.apiKey,
    credentialId,
    credentialLimiter,
    userLimiter: () => user.limiter,
    observer: options.observer ?? {},
    logger: options.logger?.child({ component: "hosting", credential: credentialId }),
    clock,
    backoff: { ...defaultBackoff, ...options.backoff },
    random: options.random ?? Math.random,
    timeoutsMs: { ...defaultTimeoutsMs, ...options.timeoutsMs },
    userAgent: "berth/0.1",
    ...(options.maxBudgetWaitMs === undefined ? {} : { maxBudgetWaitMs: options.maxBudgetWaitMs }),
  });
  return operations(
    { options, limiters, transport, credentialId, credentialLimiter, user, caller },
    unscoped,
  );
}

/** What every view of one credential's client shares: the pipeline, the limiters, the connections. */
interface ClientCore {
  options: HostingClientOptions;
  limiters: LimiterRegistry;
  transport: Transport;
  credentialId: string;
  credentialLimiter: RateLimiter;
  /** The user's limiter, once `/me` told who the user is. */
  user: { limiter: RateLimiter | undefined };
  caller: Caller;
}

/** Options every call of a scoped view carries (see `scoped`). */
export type CallScope = Pick<CallOptions, "signal" | "onSend" | "begun" | "resource" | "whileWaiting">;

const unscoped: CallScope = {};

function operations(core: ClientCore, scope: CallScope) {
  const { options, limiters, transport, credentialId, credentialLimiter, user, caller } = core;

  async function call<R extends Route>(route: R, input: CallInput, callOptions?: CallOptions) {
    const { data, metadata } = await caller(route, input, inScope(scope, callOptions));
    return withMetadata(data, metadata);
  }

  /** For answers whose body the spec doesn't show (204, and 202 acceptances): only the metadata. */
  async function callNoContent(
    route: Route,
    input: CallInput,
    callOptions?: CallOptions,
  ): Promise<ResponseMetadata> {
    return (await caller(route, input, inScope(scope, callOptions))).metadata;
  }

  function create<R extends Route>(
    route: R,
    input: CallInput,
    { idempotencyKey, ...callOptions }: CreateOptions,
  ) {
    return call(route, { ...input, idempotencyKey }, callOptions);
  }

  const app = (projectId: string, appId: string) => ({ params: { projectId, appId } });

  return {
    credentialId,

    /**
     * The same client (budget, identity, connections) whose every call also carries `scope`: a
     * reconcile's abort signal, a count of what one resource spends, the resource it is for.
     */
    scoped: (next: Omit<CallScope, "begun">) => operations(core, { ...next, begun: { admitted: false } }),

    /**
     * Awaits an answer another call is getting for this view, the way its own calls await theirs
     * (a reconcile gives its worker back meanwhile).
     */
    awaitShared: <T>(answer: Promise<T>): Promise<T> =>
      scope.whileWaiting === undefined ? answer : scope.whileWaiting(answer),

    /** The credential's rate limit: requests per window, as the service last said. */
    rateLimit: () => ({
      limit: credentialLimiter.limit,
      windowMs: options.limits?.windowMs ?? documentedLimits.windowMs,
    }),

    /** Who the credential belongs to; also attaches the user's shared rate limiter from now on. */
    async getMe(o?: CallOptions): Promise<WithMetadata<m.Me>> {
      const me = await call(routes.getMe, {}, o);
      const forUser = limiters.forUser(me.user.id);
      if (user.limiter !== forUser) {
        forUser.charge(credentialLimiter.used);
        user.limiter = forUser;
      }
      return me;
    },

    listProjects: (query: m.NamedListQuery = {}, o?: CallOptions) =>
      call(routes.listProjects, { query: { ...query } }, o),
    createProject: (input: { name: string }, o: CreateOptions) =>
      create(routes.createProject, { body: input }, o),
    getProject: (projectId: string, o?: CallOptions) => call(routes.getProject, { params: { projectId } }, o),
    renameProject: (projectId: string, name: string, o?: CallOptions) =>
      call(routes.renameProject, { params: { projectId }, body: { name } }, o),
    deleteProject: (projectId: string, o?: CallOptions) =>
      callNoContent(routes.deleteProject, { params: { projectId } }, o),

    listApps: (projectId: string, query: m.NamedListQuery = {}, o?: CallOptions) =>
      call(routes.listApps, { params: { projectId }, query: { ...query } }, o),
    createApp: (projectId: string, input: m.CreateAppInput, o: CreateOptions) =>
      create(routes.createApp, { params: { projectId }, body: input }, o),
    getApp: (projectId: string, appId: string, o?: CallOptions) =>
      call(routes.getApp, app(projectId, appId), o),
    /** PATCH only the fields that differ (the service's update rules are in `AppPatch`). */
    patchApp: (projectId: string, appId: string, patch: m.AppPatch, o?: CallOptions) =>
      call(routes.updateApp, { ...app(projectId, appId), body: patch }, o),
    /** Moving to where the app already is changes nothing, so a repeat is safe. */
    moveApp: (projectId: string, appId: string, targetProjectId: string, o?: CallOptions) =>
      call(routes.moveApp, { ...app(projectId, appId), body: { projectId: targetProjectId } }, o),
    deleteApp: (projectId: string, appId: string, o?: CallOptions) =>
      callNoContent(routes.deleteApp, app(projectId, appId), o),
    getAppStatus: (projectId: string, appId: string, o?: CallOptions) =>
      call(routes.getAppStatus, app(projectId, appId), o),
    startApp: (projectId: string, appId: string, o?: CallOptions) =>
      callNoContent(routes.startApp, app(projectId, appId), o),
    stopApp: (projectId: string, appId: string, o?: CallOptions) =>
      callNoContent(routes.stopApp, app(projectId, appId), o),
    /** Not idempotent: every call restarts again, and a failed call is never repeated by the client. */
    restartApp: (projectId: string, appId: string, o?: CallOptions) =>
      callNoContent(routes.restartApp, app(projectId, appId), o),
    /**
     * Not idempotent: every call starts another build, and a failed call is never repeated by the
     * client. The answer promises no body: the new build is the app's `buildId` afterwards.
     */
    triggerBuild: (projectId: string, appId: string, o?: CallOptions) =>
      callNoContent(routes.triggerBuild, app(projectId, appId), o),
    getAppLogs: (projectId: string, appId: string, query: { maxBytes?: number } = {}, o?: CallOptions) =>
      call(routes.getAppLogs, { ...app(projectId, appId), query: { ...query } }, o),
    getAppUsage: (projectId: string, appId: string, o?: CallOptions) =>
      call(routes.getAppUsage, app(projectId, appId), o),

    getBuild: (buildId: string, o?: CallOptions) => call(routes.getBuild, { params: { buildId } }, o),
    getBuildLogs: (buildId: string, query: { maxBytes?: number } = {}, o?: CallOptions) =>
      call(routes.getBuildLogs, { params: { buildId }, query: { ...query } }, o),

    listGrids: (query: m.NamedListQuery = {}, o?: CallOptions) =>
      call(routes.listGrids, { query: { ...query } }, o),
    createGrid: (input: m.CreateGridInput, o: CreateOptions) => create(routes.createGrid, { body: input }, o),
    getGrid: (gridId: string, o?: CallOptions) => call(routes.getGrid, { params: { gridId } }, o),
    deleteGrid: (gridId: string, o?: CallOptions) =>
      callNoContent(routes.deleteGrid, { params: { gridId } }, o),

    listServers: (query: m.ServerListQuery = {}, o?: CallOptions) =>
      call(routes.listServers, { query: { ...query } }, o),
    getServer: (address: string, o?: CallOptions) => call(routes.getServer, { params: { address } }, o),
    listOrders: (query: m.ListQuery = {}, o?: CallOptions) =>
      call(routes.listOrders, { query: { ...query } }, o),
    getOrder: (orderId: string, o?: CallOptions) => call(routes.getOrder, { params: { orderId } }, o),
    /** The dry run: what the order would cost. Use a different key from the real order's. */
    async estimateServers(input: m.ProvisionInput, o: CreateOptions): Promise<WithMetadata<m.Estimate>> {
      const result = await create(routes.provisionServers, { body: { ...input, dryRun: true } }, o);
      if (!isEstimate(result)) throw wrongVariant(result.$metadata, "estimate");
      return result;
    },
    /** The real order (202); poll it with `getOrder`, following `pollAfterSec`. */
    async orderServers(input: m.ProvisionInput, o: CreateOptions): Promise<WithMetadata<m.Order>> {
      const result = await create(routes.provisionServers, { body: { ...input, dryRun: false } }, o);
      if (isEstimate(result)) throw wrongVariant(result.$metadata, "id");
      return result;
    },
    replaceServer: (address: string, input: { instanceType?: string }, o: CreateOptions) =>
      create(routes.replaceServer, { params: { address }, body: input }, o),
    /** Accepted (202); the servers' states tell how it went. */
    powerServers: (input: m.PowerInput, o?: CallOptions) =>
      callNoContent(routes.powerServers, { body: input }, o),
    deprovisionServers: (input: m.DeprovisionInput, o?: CallOptions) =>
      callNoContent(routes.deprovisionServers, { body: input }, o),

    listRegions: (o?: CallOptions) => call(routes.listRegions, {}, o),
    listZones: (query: { region?: string } = {}, o?: CallOptions) =>
      call(routes.listZones, { query: { ...query } }, o),
    listInstanceTypes: (query: { region?: string; csp?: string } = {}, o?: CallOptions) =>
      call(routes.listInstanceTypes, { query: { ...query } }, o),

    getBalance: (o?: CallOptions) => call(routes.getBalance, {}, o),
    getCosts: (query: { from?: string; to?: string } = {}, o?: CallOptions) =>
      call(routes.getCosts, { query: { ...query } }, o),
    listInvoices: (query: m.ListQuery = {}, o?: CallOptions) =>
      call(routes.listInvoices, { query: { ...query } }, o),
    getInvoice: (invoiceNumber: string, o?: CallOptions) =>
      call(routes.getInvoice, { params: { invoiceNumber } }, o),

    ...shareOperations(call, callNoContent),

    /** Closes the connections this client opened itself (not a shared transport); a scoped view closes nothing. */
    async close(): Promise<void> {
      if (scope !== unscoped) return;
      if (options.transport === undefined) await transport.close();
      if (options.limiters === undefined) limiters.close(new Error("hosting client closed"));
    },
  };
}

/** A call's own options, joined with its view's: both signals abort it, both hear it leave. */
function inScope(scope: CallScope, callOptions: CallOptions = {}): CallOptions {
  const signals = [scope.signal, callOptions.signal].filter((s) => s !== undefined);
  const onSends = [scope.onSend, callOptions.onSend].filter((f) => f !== undefined);
  return {
    ...callOptions,
    ...(scope.begun === undefined ? {} : { begun: scope.begun }),
    ...(scope.resource === undefined ? {} : { resource: scope.resource }),
    ...(scope.whileWaiting === undefined ? {} : { whileWaiting: scope.whileWaiting }),
    ...(signals.length === 0 ? {} : { signal: signals.length === 1 ? signals[0] : AbortSignal.any(signals) }),
    ...(onSends.length === 0
      ? {}
      : {
          onSend: () => {
            for (const onSend of onSends) onSend();
          },
        }),
  };
}

/** Attaches the response metadata without making it part of the data (not enumerable). */
function withMetadata<T>(data: T, metadata: ResponseMetadata): WithMetadata<T> {
  return Object.defineProperty(data as object, "$metadata", {
    value: metadata,
    enumerable: false,
  }) as WithMetadata<T>;
}

function isEstimate<T extends m.Estimate | m.Order>(result: T): result is Extract<T, m.Estimate> {
  return typeof result.estimate === "object" && result.estimate !== null;
}

function wrongVariant(metadata: ResponseMetadata, field: string): HostingResponseInvalidError {
  return new HostingResponseInvalidError({
    operation: routes.provisionServers.operation,
    status: metadata.status,
    requestId: metadata.requestId,
    issues: [{ path: field, message: "missing: the service answered the other kind of provisioning result" }],
  });
}
