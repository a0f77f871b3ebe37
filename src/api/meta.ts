/** berth's API identity: names users type and other programs match on. */

export const group = "berth.dev";
export const version = "v1alpha1";
export const apiVersion = `${group}/${version}`;

/**
 * The revision of the CRD schemas, on every generated CRD as the label `crdRevisionLabel`. Raise it
 * whenever a generated schema changes (src/api/crd/revision.test.ts fails until you do): an operator
 * refuses to start on CRDs of a lower revision, whose apiserver would prune the fields it writes.
 */
export const crdRevision = 4;
export const crdRevisionLabel = "berth.dev/crd-revision";

/** `kubectl get berth` lists every kind. */
export const category = "berth";

/** Added before the first create at the service, so nothing external is left behind on delete. */
export const finalizer = "berth.dev/finalizer";

/** Annotations that ask for a one-off action; each handled value is echoed in status. */
export const annotations = {
  /** Reconcile now; echoed as `status.lastHandledReconcileAt`. */
  reconcileRequestedAt: "berth.dev/reconcile-requested-at",
  /** Flux's equivalent of `reconcileRequestedAt`, so `flux reconcile` works too. */
  fluxReconcileRequestedAt: "reconcile.fluxcd.io/requestedAt",
  /** Restart the app once; echoed as `status.lastHandledRestartAt`. */
  restartRequestedAt: "berth.dev/restart-requested-at",
  /** Trigger one build; echoed as `status.lastHandledRebuildAt`. */
  rebuildRequestedAt: "berth.dev/rebuild-requested-at",
  /** Replace one server of a ServerOrder once per token, `<address>@<token>`; echoed as `status.lastHandledReplaceServer`. */
  replaceServer: "berth.dev/replace-server",
  /**
   * The external object's ID, kept where backups and exports keep it (status is not): a resource
   * restored without status adopts it instead of creating another, as Crossplane's external-name.
   */
  externalId: "berth.dev/external-id",
  /** The service's user ID that owns it: a restored resource acts only with a key of that user. */
  owner: "berth.dev/owner",
  /**
   * `<namespace>/<name>` of the resource that claimed the external object: a restore (same name)
   * is the same claimant, a copy (another name or namespace) is not.
   */
  claimant: "berth.dev/claimant",
  /** When the claim was made (RFC 3339): of two claimants of one object, the earlier holds it. */
  claimedAt: "berth.dev/claimed-at",
  /**
   * What the resource owns beyond its first ID, as compact JSON of its status fields (growth
   * orders, removals, replacements, the app's project, intents that may still act, day-2 requests
   * handled): a restore without status rebuilds it before anything acts.
   */
  owned: "berth.dev/owned",
} as const;

/** Annotations on a Namespace: a pause and defaults for the berth resources in it. */
export const namespaceAnnotations = {
  /** "true": every call that changes something at the service waits; reads and status go on. */
  paused: "berth.dev/paused",
  /** Comma-separated management policies for resources that set none, e.g. "Observe". */
  managementPolicies: "berth.dev/management-policies",
  /** Delete or Orphan, for resources that set no deletionPolicy. */
  deletionPolicy: "berth.dev/deletion-policy",
} as const;

/**
 * Labels berth sets. `claim`: a digest of the kind and external ID a resource claims, so every
 * claimant of one object is found with one label selector, across namespaces and shards.
 */
export const labels = {
  claim: "berth.dev/claim",
} as const;

/** The Secret that holds hosting credentials. */
export const credentials = {
  /** Used when a resource has no `spec.credentialsRef`. */
  defaultSecretName: "berth-credentials",
  apiKeyKey: "apiKey",
  baseUrlKey: "baseUrl",
} as const;

/** Names of each kind as the apiserver knows them. */
export interface KindNames {
  kind: string;
  listKind: string;
  plural: string;
  singular: string;
  shortNames: readonly string[];
}

// Short names avoid those of other popular CRDs (Argo CD owns `app` and `apps`).
export const appNames = kindNames("App", "apps", ["bapp"]);
export const projectNames = kindNames("Project", "projects", ["bproj"]);
export const gridNames = kindNames("Grid", "grids", ["bgrid"]);
export const serverOrderNames = kindNames("ServerOrder", "serverorders", ["border"]);
export const spendLimitNames = kindNames("SpendLimit", "spendlimits", ["bspend"]);

function kindNames(kind: string, plural: string, shortNames: readonly string[]): KindNames {
  return { kind, listKind: `${kind}List`, plural, singular: kind.toLowerCase(), shortNames };
}
