// The controller runtime: generic machinery that works on any Kubernetes resource type.

export { listLabelled, type MetadataChange, patchAnnotations, patchMetadata } from "./annotations.ts";
export {
  CertificateDirectory,
  CertificateDirectoryError,
  type RenewedCertificate,
} from "./certificate-directory.ts";
export {
  type ClusterAccess,
  type Connection,
  type ConnectionSource,
  clusterAccessSource,
  type TlsSettings,
} from "./connection.ts";
export {
  Controller,
  type ControllerOptions,
  type MapToKeys,
  type ReconcileContext,
  type ReconcileRequest,
  type Reconciler,
  type Source,
  updatesWhen,
} from "./controller.ts";
export { DemandCache, type DemandCacheOptions } from "./demand-cache.ts";
export { isKubeError, KubeApiError, type KubeErrorCode } from "./errors.ts";
export {
  EventRecorder,
  type EventRecorderOptions,
  type EventSink,
  type EventType,
  kubeEventSink,
} from "./events.ts";
export { ensureFinalizer, hasFinalizer, removeFinalizer } from "./finalizers.ts";
export { defaultLivenessLimits, type LivenessLimits, type WorkProgress } from "./health.ts";
export { HeapTrimmer, type HeapTrimOptions } from "./heap-trim.ts";
export { Informer, type InformerOptions, type ObjectCache } from "./informer.ts";
export { deepEqual, type Json, mergePatch } from "./json.ts";
export { KubeClient, patchTypes } from "./kube-client.ts";
export { type KubeconfigOptions, KubeconfigSource } from "./kubeconfig.ts";
export { type LabelSelector, LabelSelectorError, parseLabelSelector } from "./label-selector.ts";
export { type LeaderElectionOptions, LeaderElector } from "./leader-election.ts";
export { Manager, type ManagerOptions, type Runnable } from "./manager.ts";
export { type Authorizer, type Denial, kubeAuthorizer, type ReviewCacheOptions } from "./metrics-auth.ts";
export { microTime } from "./micro-time.ts";
export {
  asKubeObject,
  collectionPath,
  type KubeObject,
  kubeObjectSchema,
  type ObjectMeta,
  objectKey,
  objectPath,
  parseKey,
  type ResourceType,
} from "./object.ts";
export { type Deferral, isDeferral, Outcome } from "./outcome.ts";
export { AddressError, parseAddress, type ServerSecurity } from "./probes.ts";
export { controllerRateLimiter, type RateLimiter } from "./rate-limiter.ts";
export type { Certificate } from "./self-signed.ts";
export { patchStatus, type StatusPatchResult } from "./status.ts";
export { Store, type StoreHandlers } from "./store.ts";
export { StringPool } from "./string-pool.ts";
export { WorkQueue, type WorkQueueOptions } from "./workqueue.ts";
