// The hosting API client: the operator's only way to the service. No Kubernetes imports here.
export { type BackoffPolicy, defaultBackoff } from "./backoff.ts";
export type { CallOptions, ResponseMetadata, WithMetadata } from "./call.ts";
export type { RetrySafety } from "./classify.ts";
export {
  type CallScope,
  type CreateOptions,
  createHostingClient,
  credentialIdOf,
  type HostingClient,
  type HostingClientOptions,
} from "./client.ts";
export {
  createHostingClientCache,
  type HostingClientCache,
  type HostingClientCacheOptions,
} from "./client-cache.ts";
export { type Clock, createSystemClock } from "./clock.ts";
export * from "./errors.ts";
export { canonicalJson, idempotencyKey } from "./idempotency.ts";
export { type BudgetHint, BudgetWaitError, type Priority } from "./limiter.ts";
export { documentedLimits, type LimiterDefaults, LimiterRegistry } from "./limiter-registry.ts";
export type * from "./models.ts";
export type * from "./observer.ts";
export { paginate } from "./paginate.ts";
export { type CallKind, type OperationName, routes } from "./routes.ts";
export type { SharedResource, ShareRole, ShareTarget } from "./sharing.ts";
