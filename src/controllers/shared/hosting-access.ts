import type { HostingClient, HostingClientCache, Me } from "../../hosting/index.ts";
import type { Credentials } from "./credentials.ts";
import type { IdentityCache } from "./identity.ts";

/** A client for one credential and what the service says that credential may do. */
export interface Connection {
  client: HostingClient;
  me: Me;
}

/** The operator's way to the service: one client per credential, and its cached identity. */
export class HostingAccess {
  readonly #clients: HostingClientCache;
  readonly #identities: IdentityCache;

  constructor(clients: HostingClientCache, identities: IdentityCache) {
    this.#clients = clients;
    this.#identities = identities;
  }

  async connect(credentials: Credentials): Promise<Connection> {
    const client = this.#clients.get(credentials.baseUrl, credentials.apiKey);
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
