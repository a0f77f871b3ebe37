import type { CallScope, HostingClient, HostingClientCache, Me } from "../../hosting/index.ts";
import type { Credentials } from "./credentials.ts";
import type { IdentityCache } from "./identity.ts";

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
}

/** The operator's way to the service: one client per credential, and its cached identity. */
export class HostingAccess {
  readonly #clients: HostingClientCache;
  readonly #identities: IdentityCache;
  readonly #scope: CallScope;

  constructor(clients: HostingClientCache, identities: IdentityCache, scope: CallScope = {}) {
    this.#clients = clients;
    this.#identities = identities;
    this.#scope = scope;
  }

  /** The access one reconcile uses: its calls carry the reconcile's signal. */
  forReconcile(scope: ReconcileScope): HostingAccess {
    return new HostingAccess(this.#clients, this.#identities, { signal: scope.signal });
  }

  async connect(credentials: Credentials): Promise<Connection> {
    const client = this.#clients.get(credentials.baseUrl, credentials.apiKey).scoped(this.#scope);
    return { client, me: await this.#identities.get(client) };
  }

  /** The service refused the key or a scope: read `/me` again before trusting the cache. */
  forgetIdentity(client: HostingClient): void {
    this.#identities.invalidate(client.credentialId);
  }

  close(): Promise<void> {
    return this.#clients.close();
  }
}
