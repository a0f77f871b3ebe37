import { Reason as apiReason } from "../../api/conditions.ts";

/**
 * Condition reasons the controllers write: the API's constants plus the few that only describe
 * hosting-service answers. PascalCase, stable: tools and alerts match on them.
 */
export const Reason = {
  ...apiReason,
  /** The service refused the API key (401): expired, revoked or mistyped. */
  CredentialsRejected: "CredentialsRejected",
  /**
   * `GET /me` answered 404: the base URL is not the API's (e.g. it lacks `/v1`), which is told apart
   * from an object that is gone (ExternalNotFound).
   */
  WrongBaseUrl: "WrongBaseUrl",
  /**
   * Reconciling: the resource spent its share of its key's budget without progress, so berth waits
   * (the message says until when) before calling again; a change of it or its Secret ends the wait.
   */
  BudgetCapped: "BudgetCapped",
  /**
   * Ready False: an annotation of the resource's Namespace (berth.dev/paused, -management-policies,
   * -deletion-policy) has a value berth can't read: every change there is held as by a pause.
   */
  NamespaceAnnotationInvalid: "NamespaceAnnotationInvalid",
  /** The account is frozen: the service refuses every change. */
  AccountFrozen: "AccountFrozen",
  /**
   * The user's role on the project or app is too low (e.g. an editor deleting), or the operator's
   * RBAC refuses a write it needs (the spec.outputs ConfigMap).
   */
  Forbidden: "Forbidden",
  /** The object to adopt (spec.appId / spec.projectId) does not exist or is not visible to the key. */
  ExternalNotFound: "ExternalNotFound",
  /**
   * A create had an unknown outcome and several objects of that name, held by no other resource,
   * now exist: a person picks one (spec.appId / spec.projectId) or deletes the extras.
   */
  DuplicateCreated: "DuplicateCreated",
  /** The service accepted an update but still reports the old value: berth stops re-sending it. */
  UpdateNotApplied: "UpdateNotApplied",
  /** An order call's outcome is unknown and berth can't tell which order (if any) is its result. */
  OrderUncertain: "OrderUncertain",
  /**
   * Reconciling: servers to wake did not wake, as the provider has no capacity now; berth wakes them
   * again with backoff (capacity returns without anyone acting, so this is not Stalled).
   */
  WakeBlocked: "WakeBlocked",
  /** A changed projectRef/projectId: the app is moving to its new project, keeping its ID. */
  Moving: "Moving",
  /** The credentials now belong to another user than the one who owns the external object. */
  CredentialsChanged: "CredentialsChanged",
  /** spec.outputs.configMapName names a ConfigMap berth did not create for this resource: berth never overwrites it. */
  OutputConflict: "OutputConflict",
  /**
   * A call that spends or releases had an unknown outcome and the lookup on its own input can't
   * tell what it did: a person checks at the service (the message names the call and its key).
   */
  IntentUnsettled: "IntentUnsettled",
  /**
   * Another resource already manages the external object this one names (a copied manifest, or an
   * adoption of a managed object): berth changes nothing through this one and releases it without
   * calls when it is deleted.
   */
  AlreadyManaged: "AlreadyManaged",
  /**
   * A call would add spend past the namespace's SpendLimit: nothing was called; the message names
   * the limit, the namespace's spend, what the call adds and the SpendLimit to raise. Also the
   * SpendLimit's own Ready reason when what runs costs more than its limit (nothing is stopped).
   */
  SpendLimitExceeded: "SpendLimitExceeded",
} as const;
export type Reason = (typeof Reason)[keyof typeof Reason];
