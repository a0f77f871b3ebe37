import type { HostingClient, HostingClientCache, Me } from "../../hosting/index.ts";
import type { Credentials } from "./credentials.ts";
import type { IdentityCache } from "./identity.ts";
import { ResourceBudget } from "./resource-budget.ts";

/** A client for one credential and what the service says that credential may do. */
export interface Connection {
  client: HostingClient;
  me: Me;
}

/** One reconcile of one resource, as the calls it makes on its behalf know it. */
export interface ReconcileScope {
  /** The reconcile's signal: aborted, every call in flight is abandoned. */
  signal: AbortSignal;
  /** `plural/namespace/name` of the resource reconciled. */
  resource: string;
  /** How the reconcile awaits an answer: its worker serves other keys meanwhile. */
  whileWaiting?: <T>(answer: Promise<T>) => Promise<T>;
}

/**
 * The operator's way to the service: one client per credential, its cached identity, and what each
 * resource spent of its key's budget.
 */
export class HostingAccess {
  readonly #clients: HostingClientCache;
  readonly #identities: IdentityCache;
  /** Per (credential, resource): no resource spends more than its share of a key without progress. */
  readonly budget: ResourceBudget;
  readonly #scope: ReconcileScope | undefined;

  constructor(
    clients: HostingClientCache,
    identities: IdentityCache,
    budget: ResourceBudget = new ResourceBudget(0, Date.now),
    scope?: ReconcileScope,
  ) {
    this.#clients = clients;
    this.#identities = identities;
    this.budget = budget;
    this.#scope = scope;
  }

  /** The access one reconcile uses: its calls carry the reconcile's signal and count against its resource. */
  forReconcile(scope: ReconcileScope): HostingAccess {
    return new HostingAccess(this.#clients, this.#identities, this.budget, scope);
  }

  async connect(credentials: Credentials): Promise<Connection> {
    const shared = this.#clients.get(credentials.baseUrl, credentials.apiKey);
    const scope = this.#scope;
    const client =
      scope === undefined
        ? shared
        : shared.scoped({
            signal: scope.signal,
            resource: scope.resource,
            ...(scope.whileWaiting === undefined ? {} : { whileWaiting: scope.whileWaiting }),
            onSend: () => this.budget.spend(scope.resource, shared.credentialId, shared.rateLimit()),
          });
    return { client, me: await this.#identities.get(client, credentials.baseUrl) };
  }

  /** How late drift checks turned away by the budget run now, per credential id. */
  driftLag(): Array<{ credentialId: string; lagMs: number }> {
    return this.#clients.backgroundLag();
  }

  /** The service refused the key or a scope: read `/me` again before trusting the cache. */
  forgetIdentity(client: HostingClient): void {
    this.#identities.invalidate(client.credentialId);
  }

  close(): Promise<void> {
    return this.#clients.close();
  }
}
