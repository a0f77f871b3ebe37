import type { HostingClient, Me } from "../../hosting/index.ts";

export interface IdentityCacheOptions {
  /** How long a `/me` answer is trusted (default 5 min). */
  ttlMs?: number;
  now?: () => number;
}

interface Entry {
  me: Promise<Me>;
  fetchedAt: number;
}

/**
 * `GET /me` per credential, cached: scopes and project pinning decide which actions a key may take
 * before any request is spent on them. Concurrent callers share one request; a failed read is not
 * cached; `invalidate` (after a 401 or 403) makes the next caller read again.
 */
export class IdentityCache {
  readonly #ttlMs: number;
  readonly #now: () => number;
  readonly #entries = new Map<string, Entry>();

  constructor(options: IdentityCacheOptions = {}) {
    this.#ttlMs = options.ttlMs ?? 5 * 60_000;
    this.#now = options.now ?? Date.now;
  }

  get(client: HostingClient): Promise<Me> {
    const now = this.#now();
    const cached = this.#entries.get(client.credentialId);
    if (cached !== undefined && now - cached.fetchedAt < this.#ttlMs) return cached.me;
    const entry: Entry = { me: client.getMe().then((me) => ({ ...me })), fetchedAt: now };
    this.#entries.set(client.credentialId, entry);
    entry.me.catch(() => {
      if (this.#entries.get(client.credentialId) === entry) this.#entries.delete(client.credentialId);
    });
    return entry.me;
  }

  invalidate(credentialId: string): void {
    this.#entries.delete(credentialId);
  }
}
